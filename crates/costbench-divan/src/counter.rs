//! divan's counters: what one run of a benchmark's body processes. The first one a benchmark
//! sets is its op (costbench has one op per scenario).

/// An unsigned integer a counter can be made of.
pub trait CountUInt: Copy {
    /// The count as a `u64` (saturating).
    fn to_u64(self) -> u64;
}

macro_rules! count_uint {
    ($($t:ty),*) => {$(
        impl CountUInt for $t {
            fn to_u64(self) -> u64 {
                u64::try_from(self).unwrap_or(u64::MAX)
            }
        }
    )*};
}
count_uint!(u8, u16, u32, u64, u128, usize);

macro_rules! counter {
    ($(#[$doc:meta])* $name:ident, $unit:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name {
            count: u64,
        }

        impl $name {
            /// A count of `count`.
            pub fn new<N: CountUInt>(count: N) -> Self {
                $name { count: count.to_u64() }
            }

            /// The count.
            pub fn count(&self) -> u64 {
                self.count
            }
        }

        impl<N: CountUInt> From<N> for $name {
            fn from(count: N) -> Self {
                $name::new(count)
            }
        }

        impl IntoCounter for $name {
            fn into_counter(self) -> AnyCounter {
                AnyCounter { count: self.count, unit: $unit }
            }
        }
    };
}

counter!(
    /// Bytes processed per run of the body: the op is a byte.
    ///
    /// ```
    /// # extern crate costbench_divan as divan;
    /// use divan::counter::BytesCount;
    /// assert_eq!(BytesCount::of_str("héllo").count(), 6);
    /// assert_eq!(BytesCount::of_slice(&[0u32; 4]).count(), 16);
    /// ```
    BytesCount,
    "bytes"
);
counter!(
    /// Items processed per run of the body: the op is an item.
    ///
    /// ```
    /// # extern crate costbench_divan as divan;
    /// assert_eq!(divan::counter::ItemsCount::new(64usize).count(), 64);
    /// ```
    ItemsCount,
    "items"
);
counter!(
    /// Characters processed per run of the body: the op is a char.
    ///
    /// ```
    /// # extern crate costbench_divan as divan;
    /// assert_eq!(divan::counter::CharsCount::of_str("héllo").count(), 5);
    /// ```
    CharsCount,
    "chars"
);

impl BytesCount {
    /// The bytes of `s`.
    pub fn of_str<S: AsRef<str> + ?Sized>(s: &S) -> Self {
        BytesCount::new(s.as_ref().len())
    }

    /// The bytes of `s`'s elements.
    pub fn of_slice<T, S: AsRef<[T]> + ?Sized>(s: &S) -> Self {
        BytesCount::new(std::mem::size_of_val(s.as_ref()))
    }

    /// The bytes of one `T`.
    pub fn of_instance<T>(_: &T) -> Self {
        BytesCount::new(std::mem::size_of::<T>())
    }

    /// The bytes of `count` values of `T`.
    pub fn of_many<T>(count: usize) -> Self {
        BytesCount::new(std::mem::size_of::<T>().saturating_mul(count))
    }

    /// The bytes of one `T`.
    pub fn size_of<T>() -> Self {
        BytesCount::new(std::mem::size_of::<T>())
    }
}

impl CharsCount {
    /// The chars of `s`.
    pub fn of_str<S: AsRef<str> + ?Sized>(s: &S) -> Self {
        CharsCount::new(s.as_ref().chars().count())
    }
}

/// A counter of any kind, as the benchmark's op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnyCounter {
    pub(crate) count: u64,
    pub(crate) unit: &'static str,
}

/// What [`crate::Bencher::counter`] takes.
pub trait IntoCounter {
    /// The counter.
    fn into_counter(self) -> AnyCounter;
}

impl IntoCounter for AnyCounter {
    fn into_counter(self) -> AnyCounter {
        self
    }
}

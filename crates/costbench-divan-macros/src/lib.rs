//! The attributes of `costbench-divan`: `#[bench]` registers a function as divan's does (with
//! its `args`, `consts` and `types` expanded into one benchmark each, and the counter options
//! as its op), and `#[bench_group]` accepts a module. Use them through `costbench-divan`
//! (`#[divan::bench]`), never directly.
//!
//! The generated code keeps the function as written and adds, beside it, a registration that
//! runs before `main` (an entry in the platform's constructor section, as divan's own does) and
//! hands `divan::main()` one function that declares every variant of the benchmark.

#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, FnArg, GenericParam, ItemFn, Path, Token, Type};

/// One `key` or `key = value` of the attribute.
struct Opt {
    key: syn::Ident,
    value: Option<Expr>,
    /// `types = [...]`, which holds types (`Vec<u8>` does not parse as an expression).
    types: Vec<Type>,
}

impl Parse for Opt {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `crate` is a keyword: take any identifier-like token.
        let key: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let (mut value, mut types) = (None, Vec::new());
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            if key == "types" {
                let inner;
                syn::bracketed!(inner in input);
                types = Punctuated::<Type, Token![,]>::parse_terminated(&inner)?
                    .into_iter()
                    .collect();
            } else {
                value = Some(input.parse()?);
            }
        }
        Ok(Opt { key, value, types })
    }
}

/// The options `#[bench]` takes; those that only tune divan's sampling are accepted and ignored.
#[derive(Default)]
struct Options {
    name: Option<Expr>,
    krate: Option<Path>,
    args: Option<Expr>,
    consts: Vec<Expr>,
    types: Vec<Type>,
    counters: Vec<Expr>,
    ignore: bool,
}

const IGNORED: &[&str] = &[
    "sample_count",
    "sample_size",
    "min_time",
    "max_time",
    "skip_ext_time",
    "threads",
];

fn list<T: Parse>(e: &Expr, what: &str) -> syn::Result<Vec<T>> {
    let Expr::Array(a) = e else {
        return Err(syn::Error::new_spanned(
            e,
            format!("{what} takes a list: [A, B]"),
        ));
    };
    a.elems
        .iter()
        .map(|x| syn::parse2::<T>(quote!(#x)))
        .collect()
}

fn options(attr: Tokens) -> syn::Result<Options> {
    let parsed = syn::parse::Parser::parse2(Punctuated::<Opt, Token![,]>::parse_terminated, attr)?;
    let mut o = Options::default();
    for Opt { key, value, types } in parsed {
        let k = key.to_string();
        let need = |v: Option<Expr>| {
            v.ok_or_else(|| syn::Error::new_spanned(&key, format!("{k} needs a value: {k} = ...")))
        };
        match k.as_str() {
            "name" => o.name = Some(need(value)?),
            "crate" => o.krate = Some(syn::parse2(quote!(#value))?),
            "args" => o.args = Some(need(value)?),
            "consts" => o.consts = list(&need(value)?, "consts")?,
            "types" => o.types = types,
            "counters" => o.counters = list(&need(value)?, "counters")?,
            "bytes_count" => {
                let v = need(value)?;
                o.counters
                    .push(syn::parse2(quote!(__divan::counter::BytesCount::from(#v)))?)
            }
            "items_count" => {
                let v = need(value)?;
                o.counters
                    .push(syn::parse2(quote!(__divan::counter::ItemsCount::from(#v)))?)
            }
            "chars_count" => {
                let v = need(value)?;
                o.counters
                    .push(syn::parse2(quote!(__divan::counter::CharsCount::from(#v)))?)
            }
            "ignore" => o.ignore = true,
            k if IGNORED.contains(&k) => {}
            _ => {
                return Err(syn::Error::new_spanned(
                    key,
                    format!("costbench-divan does not know the option {k}"),
                ))
            }
        }
    }
    Ok(o)
}

/// `#[divan::bench]`: see the crate docs of `costbench-divan`.
#[proc_macro_attribute]
pub fn bench(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `#[divan::bench_group]`: accepted on a module; its options tune divan's sampling only, and its
/// benchmarks are named by their module path anyway.
#[proc_macro_attribute]
pub fn bench_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    item
}

fn expand(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let o = options(attr)?;
    let f: ItemFn = syn::parse2(item)?;
    let krate = o
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::divan));
    let ignored = o.ignore || f.attrs.iter().any(|a| a.path().is_ident("ignore"));
    let ident = &f.sig.ident;
    if ignored {
        // Left out, as divan leaves it out of a run without --ignored; still compiled.
        return Ok(quote!(#[allow(dead_code)] #f));
    }

    // Parameters: an optional leading Bencher, then an optional argument.
    let params: Vec<&syn::PatType> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) => Ok(t),
            FnArg::Receiver(r) => Err(syn::Error::new_spanned(r, "a benchmark takes no self")),
        })
        .collect::<syn::Result<_>>()?;
    let is_bencher = |t: &Type| match t {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Bencher"),
        _ => false,
    };
    let (takes_bencher, arg_ty) = match params.as_slice() {
        [] => (false, None),
        [b] if is_bencher(&b.ty) => (true, None),
        [a] => (false, Some(&*a.ty)),
        [b, a] if is_bencher(&b.ty) => (true, Some(&*a.ty)),
        _ => {
            return Err(syn::Error::new_spanned(
                &f.sig.inputs,
                "a benchmark takes a Bencher, an argument, or a Bencher then an argument",
            ))
        }
    };
    if arg_ty.is_some() != o.args.is_some() {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "a benchmark with an argument needs args = [...], and args need an argument",
        ));
    }
    let has_type = f
        .sig
        .generics
        .params
        .iter()
        .any(|g| matches!(g, GenericParam::Type(_)));
    let has_const = f
        .sig
        .generics
        .params
        .iter()
        .any(|g| matches!(g, GenericParam::Const(_)));
    if has_type == o.types.is_empty() || has_const == o.consts.is_empty() {
        return Err(syn::Error::new_spanned(
            &f.sig.generics,
            "a generic benchmark needs types = [...] for its type parameter and consts = [...] \
             for its const parameter",
        ));
    }

    // Every (type, const) pair: the turbofish and the name suffix.
    let types: Vec<Option<&Type>> = if o.types.is_empty() {
        vec![None]
    } else {
        o.types.iter().map(Some).collect()
    };
    let consts: Vec<Option<&Expr>> = if o.consts.is_empty() {
        vec![None]
    } else {
        o.consts.iter().map(Some).collect()
    };
    let name = match &o.name {
        Some(n) => quote!(#n),
        None => quote!(stringify!(#ident)),
    };
    let counters = &o.counters;
    let mut variants = Vec::new();
    for t in &types {
        for c in &consts {
            let generics: Vec<Tokens> = f
                .sig
                .generics
                .params
                .iter()
                .filter_map(|g| match g {
                    GenericParam::Type(_) => t.map(|t| quote!(#t)),
                    GenericParam::Const(_) => c.map(|c| quote!({ #c })),
                    GenericParam::Lifetime(_) => None,
                })
                .collect();
            let turbofish = if generics.is_empty() {
                quote!()
            } else {
                quote!(::<#(#generics),*>)
            };
            let type_part = t.map(|t| {
                let s = quote!(#t).to_string().replace(' ', "");
                quote!(__name.push('/'); __name.push_str(#s);)
            });
            let const_part = c.map(|c| {
                quote! {
                    __name.push('/');
                    __name.push_str(&{
                        use __divan::__private::{ByDebug as _, ByDisplay as _};
                        (&&__divan::__private::Wrap(&#c)).__divan_name()
                    });
                }
            });
            let call = |arg: Tokens| {
                if takes_bencher {
                    quote!(#ident #turbofish(__b, #arg))
                } else {
                    quote!(__b.bench_local(|| #ident #turbofish(#arg)))
                }
            };
            let body = match (&o.args, arg_ty) {
                (Some(args), Some(ty)) => {
                    let pass = if matches!(ty, Type::Reference(_)) {
                        quote!(__a)
                    } else {
                        quote!(::std::clone::Clone::clone(__a))
                    };
                    let call = call(pass);
                    quote! {
                        let __args = __divan::__private::collect(#args);
                        for __a in __args.iter() {
                            let mut __name = __name.clone();
                            __name.push('/');
                            __name.push_str(&{
                                use __divan::__private::{ByDebug as _, ByDisplay as _};
                                (&&__divan::__private::Wrap(__a)).__divan_name()
                            });
                            __r.bench(__name, &mut |__b: __divan::Bencher<'_, '_>| {
                                let __b = __b #(.counter(#counters))*;
                                #call
                            });
                        }
                    }
                }
                _ => {
                    let call = call(quote!());
                    let call = if takes_bencher {
                        // `f(__b, )` is not valid Rust: drop the empty argument.
                        quote!(#ident #turbofish(__b))
                    } else {
                        call
                    };
                    quote! {
                        __r.bench(__name, &mut |__b: __divan::Bencher<'_, '_>| {
                            let __b = __b #(.counter(#counters))*;
                            #call
                        });
                    }
                }
            };
            variants.push(quote! {
                {
                    let mut __name = __divan::__private::path(module_path!(), #name);
                    #type_part
                    #const_part
                    #body
                }
            });
        }
    }
    let declare = format_ident!("__costbench_divan_declare_{}", ident);
    Ok(quote! {
        #f

        #[doc(hidden)]
        #[allow(non_snake_case, unused_braces)]
        const _: () = {
            use #krate as __divan;
            fn #declare(__r: &mut __divan::__private::Registry) {
                #(#variants)*
            }
            static __ENTRY: __divan::__private::Entry =
                __divan::__private::Entry::new(module_path!(), line!(), #declare);
            #[used]
            #[cfg_attr(
                any(target_os = "linux", target_os = "android", target_os = "freebsd",
                    target_os = "netbsd", target_os = "openbsd", target_os = "dragonfly",
                    target_os = "illumos", target_os = "solaris"),
                unsafe(link_section = ".init_array")
            )]
            #[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
            #[cfg_attr(windows, unsafe(link_section = ".CRT$XCU"))]
            static __REGISTER: extern "C" fn() = {
                extern "C" fn register() {
                    __divan::__private::register(&__ENTRY);
                }
                register
            };
        };
    })
}

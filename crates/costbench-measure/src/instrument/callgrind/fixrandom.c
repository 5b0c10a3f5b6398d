/* Preloaded into scenario processes under instruction counting (costbench, measure/callgrind).
 * Replaces getrandom(2)'s libc wrapper with a fixed byte sequence, so that std's HashMap seeds
 * (RandomState) and other code seeded from getrandom behave the same in every run and the
 * instruction counts repeat exactly. Never used for wall time; never use it for secrets.
 *
 * Code that makes the system call through libc's generic syscall() instead of the wrapper (the
 * getrandom crate before 0.3, and so ring's SystemRandom: TLS key shares, ECDSA nonces, ticket
 * keys) gets the same sequence: syscall() is interposed too, and every other system call is
 * passed on to libc's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t n, unsigned int flags) {
    unsigned char *p = buf;
    (void)flags;
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + 7u);
    return (ssize_t)n;
}

int getentropy(void *buf, size_t n) {
    if (n > 256) return -1;
    getrandom(buf, n, 0);
    return 0;
}

/* libc's syscall(), looked up when the library loads, so that no dlsym runs inside a measured
 * region (or on first use, should another library's constructor call syscall() before ours). */
__attribute__((used)) static long (*next_syscall)(long, ...);

__attribute__((constructor)) static void find_next_syscall(void) {
    next_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
}

/* syscall(2) takes up to six word-sized arguments; reading six whatever the call passed is what
 * libc's own syscall() does on x86-64 and aarch64 (unused ones are ignored by the kernel). */
__attribute__((visibility("hidden"), used)) long
costbench_syscall_slow(long number, long a0, long a1, long a2, long a3, long a4, long a5) {
#ifdef SYS_getrandom
    if (number == SYS_getrandom) return getrandom((void *)a0, (size_t)a1, (unsigned int)a2);
#endif
    if (!next_syscall) find_next_syscall();
    return next_syscall(number, a0, a1, a2, a3, a4, a5);
}

#if defined(__x86_64__) && defined(SYS_getrandom)
/* On x86-64 every other system call leaves the registers and the stack as the caller set them
 * and jumps straight to libc's syscall(): 5 instructions on the measured path, where copying the
 * variadic arguments in C cost 35 per call (std's futex waits and wakes go through syscall()). */
#define COSTBENCH_STR2(x) #x
#define COSTBENCH_STR(x) COSTBENCH_STR2(x)
__asm__(".text\n"
        ".globl syscall\n"
        ".type syscall, @function\n"
        "syscall:\n"
        "    cmpq $" COSTBENCH_STR(SYS_getrandom) ", %rdi\n"
        "    je costbench_syscall_slow\n"
        "    movq next_syscall(%rip), %rax\n"
        "    testq %rax, %rax\n"
        "    jz costbench_syscall_slow\n"
        "    jmp *%rax\n"
        ".size syscall, .-syscall\n");
#else
long syscall(long number, ...) {
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    return costbench_syscall_slow(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
#endif

/* Preloaded into scenario processes under instruction counting (costbench, measure/callgrind).
 * Replaces getrandom(2)'s libc wrapper with a fixed byte sequence, so that std's HashMap seeds
 * (RandomState) and other code seeded from getrandom behave the same in every run and the
 * instruction counts repeat exactly. Never used for wall time; never use it for secrets. */
#include <stddef.h>
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

/* The packet-processing kernel of costbench's built-in suite, in C: the baseline of the
 * C-vs-Rust comparison (suites/builtin/src/packet.rs has the same kernel in Rust, checked and
 * unchecked). Keep the three versions doing exactly the same work. */
#include <stddef.h>
#include <stdint.h>

struct costbench_flow {
    uint64_t packets;
    uint64_t bytes;
};

static inline uint32_t be16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | p[1]; }

static inline uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Parses `batch` packets from the ring (`slots` buffers of `slot_size` bytes, a power of two
 * many), starting at slot `head`: Ethernet + IPv4 + TCP/UDP headers. Counts packets and IP
 * bytes per flow (5-tuple hash into `nflows` counters, a power of two). Returns the packets
 * accepted. */
uint64_t costbench_packet_batch_c(const uint8_t *ring, size_t slot_size, size_t slots,
                                  size_t head, size_t batch, struct costbench_flow *flows,
                                  size_t nflows) {
    uint64_t accepted = 0;
    for (size_t i = 0; i < batch; i++) {
        const uint8_t *p = ring + ((head + i) & (slots - 1)) * slot_size;
        if (be16(p + 12) != 0x0800) /* IPv4 only */
            continue;
        uint32_t proto = p[23];
        if (proto != 6 && proto != 17) /* TCP or UDP */
            continue;
        uint32_t h = be32(p + 26) * 0x9E3779B1u;
        h ^= be32(p + 30) * 0x85EBCA77u;
        h ^= ((be16(p + 34) << 16) | be16(p + 36)) * 0xC2B2AE3Du;
        h ^= proto;
        h ^= h >> 15;
        struct costbench_flow *f = &flows[h & (nflows - 1)];
        f->packets += 1;
        f->bytes += be16(p + 16);
        accepted++;
    }
    return accepted;
}

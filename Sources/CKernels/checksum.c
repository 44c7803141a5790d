// CRC-32 by slicing-by-8 (eight table lookups per 8 bytes): about 8x the byte-at-a-time loop, so
// checking a model bundle's members no longer dominates creating a task.
#include "CKernels.h"
#include <pthread.h>
#include <string.h>

static uint32_t g_tables[8][256];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        g_tables[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int t = 1; t < 8; t++) g_tables[t][i] = (g_tables[t - 1][i] >> 8) ^ g_tables[0][g_tables[t - 1][i] & 0xffu];
    }
}

uint32_t ck_crc32_update(uint32_t crc, const void *bytes, size_t count) {
    pthread_once(&g_once, make_tables);
    const uint8_t *p = (const uint8_t *)bytes;
    uint32_t c = ~crc;
    while (count >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = g_tables[7][lo & 0xffu] ^ g_tables[6][(lo >> 8) & 0xffu] ^ g_tables[5][(lo >> 16) & 0xffu] ^ g_tables[4][lo >> 24] ^
            g_tables[3][hi & 0xffu] ^ g_tables[2][(hi >> 8) & 0xffu] ^ g_tables[1][(hi >> 16) & 0xffu] ^ g_tables[0][hi >> 24];
        p += 8;
        count -= 8;
    }
    while (count-- > 0) c = g_tables[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
    return ~c;
}

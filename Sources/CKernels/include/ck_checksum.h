// Checksums of untrusted archives (the CRC-32 of zip members).
#ifndef VISIONTASKS_CK_CHECKSUM_H
#define VISIONTASKS_CK_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Continues the CRC-32 (IEEE 802.3, zip's; reflected polynomial 0xEDB88320) of a stream:
/// `crc` is the value returned for the bytes so far (0 before the first byte).
uint32_t ck_crc32_update(uint32_t crc, const void *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif

/* checksum.h - CRC-32, Adler-32 and non-cryptographic hashes. */
#ifndef TOOLKIT_CHECKSUM_H
#define TOOLKIT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (IEEE 802.3, reflected, as zlib): pass 0 to start, the previous result to continue. */
uint32_t tk_crc32(uint32_t crc, const void *data, size_t len);
uint32_t tk_adler32(uint32_t adler, const void *data, size_t len);
uint32_t tk_fnv1a32(const void *data, size_t len);
uint64_t tk_fnv1a64_str(const char *s);
uint64_t tk_mix64(uint64_t x);

#endif

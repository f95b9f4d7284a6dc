/* crc32.c - table-driven CRC-32; the table is built on first use. */
#include "toolkit/checksum.h"

static uint32_t crc_table[256];
static int crc_table_ready;

static void build_table(void)
{
    uint32_t n;

    for (n = 0; n < 256; n++) {
        uint32_t c = n;
        int k;

        for (k = 0; k < 8; k++) {
            if (c & 1)
                c = 0xEDB88320u ^ (c >> 1);
            else
                c >>= 1;
        }
        crc_table[n] = c;
    }
    crc_table_ready = 1;
}

uint32_t tk_crc32(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;

    if (!crc_table_ready)
        build_table();
    crc = ~crc;
    while (len--)
        crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

uint32_t tk_adler32(uint32_t adler, const void *data, size_t len)
{
    enum { MOD_ADLER = 65521, NMAX = 5552 };
    const unsigned char *p = data;
    uint32_t a = adler & 0xFFFF, b = (adler >> 16) & 0xFFFF;

    if (adler == 0)
        a = 1;
    while (len > 0) {
        /* Reduce only every NMAX bytes: the sums cannot overflow before that. */
        size_t chunk = len < NMAX ? len : NMAX;

        len -= chunk;
        while (chunk--) {
            a += *p++;
            b += a;
        }
        a %= MOD_ADLER;
        b %= MOD_ADLER;
    }
    return (b << 16) | a;
}

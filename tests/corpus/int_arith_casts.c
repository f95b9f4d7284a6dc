/* int_arith_casts.c: integer division and modulo with negative operands (C99 truncation),
 * shifts of unsigned values, unsigned wraparound (defined), fixed-width <stdint.h> types,
 * casts between int/float/double/char/unsigned char/short/long, truncation of doubles to int,
 * char arithmetic, signed/unsigned comparisons made explicit, integer reductions. */
#include <stdio.h>
#include <stdint.h>
#include <inttypes.h>

int main(void)
{
    for (int a = -7; a <= 7; a += 7)
        for (int b = -3; b <= 3; b += 6)
            printf("%d/%d=%d %d%%%d=%d\n", a, b, a / b, a, b, a % b);

    long qs = 0, rs = 0;
    for (int i = -50; i < 50; i++) {
        qs += i / 7 + i / -4;
        rs += i % 7 * 3 + i % -4;
    }
    printf("qs=%ld rs=%ld\n", qs, rs);

    /* unsigned wraparound hash (FNV-1a) */
    uint32_t h = 2166136261u;
    for (int i = 0; i < 1000; i++) {
        h ^= (uint32_t)(i & 0xff);
        h *= 16777619u;
    }
    uint64_t h64 = 1469598103934665603ull;
    for (unsigned i = 0; i < 500; i++) {
        h64 ^= i * 0x9e3779b97f4a7c15ull;
        h64 = (h64 << 13) | (h64 >> 51);
    }
    printf("fnv=%" PRIu32 " h64=%" PRIu64 "\n", h, h64);

    /* casts */
    double dvals[] = {-2.75, -0.5, 0.0, 0.49, 1.5, 2.999, 127.9, 200.2, -129.7};
    int nd = (int)(sizeof dvals / sizeof dvals[0]);
    for (int i = 0; i < nd; i++) {
        int iv = (int)dvals[i];
        float fv = (float)dvals[i];
        short sv = (short)iv;
        unsigned char uc = (unsigned char)(iv & 0xff);
        long lv = (long)(dvals[i] * 1000.0);
        printf("%g -> int %d float %.9g short %d uchar %u long %ld back %.17g\n", dvals[i], iv, (double)fv, sv, uc, lv,
               (double)iv + (double)fv);
    }

    /* char arithmetic */
    char msg[] = "Hello, Loops 123";
    int csum = 0;
    for (int i = 0; msg[i]; i++) {
        char c = msg[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (c >= '0' && c <= '9')
            c = (char)('9' - (c - '0'));
        msg[i] = c;
        csum += (unsigned char)c * (i + 1);
    }
    printf("msg=%s csum=%d\n", msg, csum);

    /* int <-> float accumulation differences */
    int isum = 0;
    float fsum = 0.0f;
    double dsum = 0.0;
    for (int i = 1; i <= 2000; i++) {
        isum += i % 13 - 6;
        fsum += (float)i / 3.0f;
        dsum += (double)((float)i / 3.0f);
    }
    printf("isum=%d fsum=%a dsum=%a\n", isum, (double)fsum, dsum);

    /* shifts and masks */
    unsigned bits = 0;
    int pop = 0;
    for (unsigned v = 1; v < 5000; v = v * 3 + 1) {
        bits |= v << (v % 5);
        for (unsigned t = v; t; t >>= 1)
            pop += (int)(t & 1u);
    }
    int8_t i8 = 0;
    int16_t i16 = 0;
    for (int i = 0; i < 100; i++) {
        i8 = (int8_t)((i8 + i) % 100);
        i16 = (int16_t)(i16 * 3 % 10007 + i);
    }
    printf("bits=%u pop=%d i8=%d i16=%d\n", bits, pop, (int)i8, (int)i16);

    /* integer reductions: min/max/argmax/count */
    int data[64];
    for (int i = 0; i < 64; i++)
        data[i] = ((i * 7919) % 211) - 105;
    int mn = data[0], mx = data[0], amx = 0, neg = 0;
    long sq = 0;
    for (int i = 1; i < 64; i++) {
        if (data[i] < mn)
            mn = data[i];
        if (data[i] > mx) {
            mx = data[i];
            amx = i;
        }
        neg += data[i] < 0;
        sq += (long)data[i] * data[i];
    }
    printf("mn=%d mx=%d amx=%d neg=%d sq=%ld\n", mn, mx, amx, neg, sq);
    return 0;
}

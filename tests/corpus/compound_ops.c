/* compound_ops.c: every compound assignment (+= -= *= /= %= <<= >>= &= |= ^=) in loop bodies,
 * pre/post ++ and -- inside expressions and array subscripts, the comma operator in
 * expressions and loop headers, nested ternaries, assignment used as a value (a = b = c),
 * and compound assignment through array elements and pointers. */
#include <stdio.h>

#define N 32

int main(void)
{
    int ia[N];
    unsigned ua[N];
    for (int i = 0; i < N; i++) {
        ia[i] = i * 37 % 101 - 50;
        ua[i] = (unsigned)i * 2654435761u;
    }

    int add = 0, sub = 1000, mul = 1, dv = 1 << 30, md = 0;
    unsigned shl = 1, shr = 0xffffffffu, an = ~0u, orr = 0, xr = 0;
    for (int i = 0; i < N; i++) {
        add += ia[i];
        sub -= ia[i] / 3;
        mul *= (i % 3) - 1 ? 1 : -1;
        if (i % 4 == 0)
            dv /= 2;
        md += ia[i] % 7;
        md %= 1000;
        shl <<= (i % 3 == 0);
        shr >>= (i % 8 == 0);
        an &= ua[i] | 0x0f0f0f0fu;
        orr |= ua[i] & 0x01010101u;
        xr ^= ua[i] >> (i % 16);
    }
    printf("add=%d sub=%d mul=%d dv=%d md=%d\n", add, sub, mul, dv, md);
    printf("shl=%u shr=%u and=%u or=%u xor=%u\n", shl, shr, an, orr, xr);

    double dacc = 1.0;
    for (int i = 1; i <= 20; i++) {
        dacc *= 1.0 + 1.0 / i;
        dacc /= 1.0 + 0.5 / i;
        dacc -= 0.001 * i;
        dacc += 0.0005;
    }
    printf("dacc=%.17g\n", dacc);

    /* ++/-- in expressions and subscripts */
    int b[N] = {0};
    int p = 0, q = N - 1, pairs = 0;
    while (p < q) {
        b[p++] += q;
        b[q--] -= p;
        pairs++;
    }
    int bs = 0;
    for (int i = 0; i < N; i++)
        bs = bs * 3 % 65521 + b[i];
    printf("pairs=%d p=%d q=%d bs=%d\n", pairs, p, q, bs);

    int c = 5;
    int r1 = c++ + 10;
    int r2 = --c * 2;
    int r3 = (c++, c++, c);
    printf("c=%d r1=%d r2=%d r3=%d\n", c, r1, r2, r3);

    /* comma operator in a loop header and body */
    int lo, hi, sum = 0;
    for (lo = 0, hi = N; lo < hi; lo++, hi -= 2)
        sum += (ia[lo] > 0 ? ia[lo] : -ia[lo]), sum ^= hi;
    printf("lo=%d hi=%d sum=%d\n", lo, hi, sum);

    /* nested ternaries and chained assignment */
    int cls[4] = {0, 0, 0, 0};
    for (int i = 0; i < N; i++)
        cls[ia[i] < -25 ? 0 : ia[i] < 0 ? 1 : ia[i] < 25 ? 2 : 3]++;
    int x, y, z;
    x = y = z = cls[0] + cls[3];
    x += y *= z -= 2;
    printf("cls=%d,%d,%d,%d x=%d y=%d z=%d\n", cls[0], cls[1], cls[2], cls[3], x, y, z);

    /* compound assignment through pointers, in reverse */
    double dv2[N];
    for (int i = 0; i < N; i++)
        dv2[i] = i * 0.5;
    for (double *pp = dv2 + N - 1; pp > dv2; --pp)
        *pp -= *(pp - 1) * 0.5;
    double t = 0;
    for (int i = 0; i < N; i++)
        t += dv2[i] * (i & 1 ? 1 : -1);
    printf("t=%.17g\n", t);

    /* assignment inside a condition */
    int v, cnt = 0, idx = 0;
    while ((v = ia[idx++]) != 17 && idx < N)
        cnt += v > 0;
    printf("cnt=%d idx=%d v=%d\n", cnt, idx, v);
    return 0;
}

/* loop_shapes.c: loops of every shape: triangular and trapezoidal nests, non-unit and negative
 * strides (i += 2, i -= 3, i = i + 3, i--), conditions <, <=, >, >=, !=, for(;;) with break,
 * while, do-while, continue, nested ifs, loop variables declared outside the for and used after
 * the loop, long / unsigned / size_t / char counters, empty bodies, bounds depending on outer
 * variables and on function calls, loops whose bound changes inside the body (not affine). */
#include <stdio.h>
#include <stddef.h>

#define N 30

static int bound(int k) { return k * 2 + 1; }

int main(void)
{
    double a[N][N];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = (i + 1) * 0.5 - j * 0.25;
    printf("after init: i=%d j=%d\n", i, j);

    /* lower triangular, upper triangular, trapezoid */
    double lo = 0, up = 0, tz = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j <= i; j++)
            lo += a[i][j];
    for (i = 0; i < N; i++)
        for (j = i + 1; j < N; j++)
            up += a[i][j] * j;
    for (i = 2; i < N - 2; i++)
        for (j = i / 2; j < N - i / 3; j++)
            tz += a[i][j] - a[j][i];
    printf("lo=%.17g up=%.17g tz=%.17g\n", lo, up, tz);

    /* strides */
    long s2 = 0, s3 = 0, sneg = 0, sdown = 0;
    for (i = 0; i < 100; i += 2)
        s2 += i;
    for (i = 1; i <= 100; i = i + 3)
        s3 += i;
    printf("i after i=i+3 loop: %d\n", i);
    for (i = 99; i >= 0; i -= 3)
        sneg += i * 2;
    for (i = N - 1; i > 0; i--)
        sdown = sdown * 3 % 1000003 + i;
    printf("s2=%ld s3=%ld sneg=%ld sdown=%ld i=%d\n", s2, s3, sneg, sdown, i);

    /* != condition, counter declared outside and used afterwards */
    int k;
    int cnt = 0;
    for (k = 0; k != 40; k += 4)
        cnt += k;
    printf("k=%d cnt=%d\n", k, cnt);

    /* for(;;) with break, while, do-while */
    int x = 0, steps = 0;
    for (;;) {
        x += 7;
        if (x % 11 == 3)
            break;
        steps++;
    }
    printf("forever: x=%d steps=%d\n", x, steps);
    unsigned w = 1000;
    int wc = 0;
    while (w > 1) {
        w = (w % 2) ? w * 3 + 1 : w / 2;
        wc++;
    }
    printf("while: wc=%d\n", wc);
    int d = 0;
    do {
        d += 3;
    } while (d < 0);
    int dd = 10, dsum = 0;
    do
        dsum += dd--;
    while (dd > 0);
    printf("do: d=%d dsum=%d dd=%d\n", d, dsum, dd);

    /* continue and nested ifs */
    double cs = 0;
    for (i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue;
        for (j = 0; j < N; j++) {
            if (j == i)
                continue;
            if (a[i][j] > 0) {
                if (j % 2)
                    cs += a[i][j];
                else
                    cs -= a[i][j] * 0.5;
            } else if (a[i][j] < -2) {
                cs *= 0.999;
            } else {
                cs += 1e-3;
            }
        }
    }
    printf("continue/nested-if cs=%.17g\n", cs);

    /* counters of various integer types */
    long ls = 0;
    for (long l = -50; l < 50; l++)
        ls += l * l * l;
    unsigned us = 0;
    for (unsigned u = 10; u-- > 0;)
        us = us * 2 + u;
    size_t zs = 0;
    for (size_t z = 0; z < 64; z += 5)
        zs += z;
    unsigned char ucs = 0;
    for (unsigned char c = 'a'; c <= 'z'; c++)
        ucs = (unsigned char)(ucs + c);
    long long lls = 0;
    for (long long q = 1; q < (1LL << 40); q *= 3)
        lls += q;
    printf("ls=%ld us=%u zs=%zu ucs=%u lls=%lld\n", ls, us, zs, (unsigned)ucs, lls);

    /* bounds from calls and outer variables; empty body; comma in header */
    int bs = 0;
    for (int p = 0; p < 5; p++)
        for (int q = p; q < bound(p); q++)
            bs += p * 10 + q;
    int e;
    for (e = 0; e < 1000 && e * e < 777; e++)
        ;
    int m1, m2;
    for (m1 = 0, m2 = 20; m1 < m2; m1 += 2, m2--)
        bs += m1 - m2;
    printf("bs=%d e=%d m1=%d m2=%d\n", bs, e, m1, m2);

    /* bound modified in the body; index modified in the body */
    int lim = 10, it = 0;
    for (int r = 0; r < lim; r++) {
        if (r % 4 == 0 && lim < 25)
            lim += 3;
        it++;
    }
    int skip = 0;
    for (int r = 0; r < 40; r++) {
        if (r % 5 == 0)
            r += 2;
        skip += r;
    }
    printf("lim=%d it=%d skip=%d\n", lim, it, skip);

    /* loop over a 2D array in column-major order, writing a reduction per column */
    double colsum[N];
    for (j = 0; j < N; j++) {
        colsum[j] = 0;
        for (i = N - 1; i >= 0; i--)
            colsum[j] = colsum[j] * 0.5 + a[i][j];
    }
    double ct = 0;
    for (j = 0; j < N; j++)
        ct += colsum[j];
    printf("colsum total=%.17g\n", ct);

    /* stride-2 read, reversed write, and a three-deep nest with a shifted inner bound */
    double v[N], r[N];
    for (i = 0; i < N; i++)
        v[i] = i * 1.5;
    for (i = 0; i < N / 2; i++)
        r[N - 1 - i] = v[2 * i] + v[2 * i + 1];
    for (i = 0; i < N / 2; i++)
        r[i] = -v[i];
    double t3 = 0;
    for (i = 0; i < 8; i++)
        for (j = i; j < 8; j++)
            for (k = j - i; k <= j; k++)
                t3 += r[k] * (i + 1) - r[N - 1 - j];
    printf("t3=%.17g r0=%.17g rlast=%.17g\n", t3, r[0], r[N - 1]);
    return 0;
}

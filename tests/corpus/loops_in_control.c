/* loops_in_control.c: loop nests in awkward syntactic positions that the splicer must find
 * and replace exactly: the unbraced body of an if / else, inside switch cases (with a loop
 * directly after a case label), after a statement label, inside bare { } blocks, as the
 * unbraced body of another loop on the same line, one-line loops, a loop in a static
 * function that main never calls with the same arguments twice, and main(argc, argv). */
#include <stdio.h>

#define N 16

static double v[N];

static double mode_sum(int mode)
{
    double s = 0;
    switch (mode) {
    case 0:
        for (int i = 0; i < N; i++)
            s += v[i];
        break;
    case 1:
    case 2:
        for (int i = mode; i < N; i += mode) s -= v[i];
        break;
    default: {
        int i = N;
        while (i--)
            s += v[i] * mode;
    }
    }
    return s;
}

int main(int argc, char **argv)
{
    (void)argv;
    for (int i = 0; i < N; i++) v[i] = i * 0.75 - 2;
    double r = 0;
    if (argc > 5)
        for (int i = 0; i < N; i++)
            r -= 1000;
    else
        for (int i = 0; i < N; i++)
            for (int j = 0; j <= i; j++)
                r += v[i] * v[j];
    printf("r=%.17g\n", r);
    for (int m = 0; m < 4; m++)
        printf("mode %d: %.17g\n", m, mode_sum(m));

    int cnt = 0;
    {
        int local = 3;
        for (int i = 0; i < N; i++) { if (i % local == 0) cnt++; }
    }
    {
        for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) cnt += i ^ j;
    }
again:
    for (int i = 0; i < 3; i++)
        cnt *= 2;
    if (cnt < 10000)
        goto again;
    printf("cnt=%d\n", cnt);

    int x = 0;
    if (argc >= 1) {
        if (argc < 100)
            while (x < 50)
                x += 7;
    } else {
        do
            x--;
        while (x > -5);
    }
    printf("x=%d\n", x);
    return argc - 1;
}

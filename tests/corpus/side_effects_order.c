/* side_effects_order.c: loop bodies with observable side effects whose order must be kept:
 * printf/putchar inside nested loops, calls that mutate global state (a counter and a log
 * buffer), calls in loop conditions and bounds evaluated every iteration, volatile variables,
 * and a loop whose body both reads and writes a global through a function. */
#include <stdio.h>

static int calls;
static char logbuf[512];
static int logpos;
volatile int vol_sink;

static int tick(int x)
{
    calls++;
    if (logpos < (int)sizeof logbuf - 1)
        logbuf[logpos++] = (char)('a' + (x % 26));
    return x;
}

static int limit(void)
{
    calls++;
    return 6;
}

static int g_state = 1;
static int bump(void) { return g_state = (g_state * 5 + 3) % 64; }

int main(void)
{
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++)
            printf("(%d,%d)", i, j);
        putchar('\n');
    }
    for (int i = 0; i < limit(); i++) /* limit() evaluated on every test */
        for (int j = 0; j < i; j++)
            tick(i * 3 + j);
    logbuf[logpos] = 0;
    printf("calls=%d log=%s\n", calls, logbuf);

    int acc = 0;
    for (int i = tick(2); i < tick(9); i += tick(1))
        acc += tick(i);
    printf("calls=%d acc=%d\n", calls, acc);

    for (int i = 0; i < 1000; i++)
        vol_sink = i; /* every store must happen; the final value must be visible */
    int vs = 0;
    for (int i = 0; i < 10; i++)
        vs += vol_sink;
    printf("vol=%d vs=%d\n", vol_sink, vs);

    int seq[20];
    for (int i = 0; i < 20; i++)
        seq[i] = bump() + i;
    for (int i = 0; i < 20; i++)
        printf("%d%c", seq[i], i == 19 ? '\n' : ' ');

    /* interleaved output from two statements per iteration */
    for (int i = 3; i > 0; i--) {
        printf("down %d;", i);
        printf(" sq %d\n", i * i);
    }
    fflush(stdout);
    return 0;
}

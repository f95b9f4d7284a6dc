/* gnu_elvis.c: the GNU conditional with an omitted middle operand, `a ?: b` (a evaluated once),
 * in loop bodies and in a loop bound, with a side-effecting first operand so that evaluating it
 * twice (rewriting it as a ? a : b) would change the output. Kept apart from gnu_extensions.c
 * because the parser may not accept it. */
#include <stdio.h>

static int calls;
static int next_val(int i)
{
    calls++;
    return i % 4 == 0 ? 0 : i * 3;
}

int main(void)
{
    int lut[8] = {1, 1, 1, 1, 2, 2, 2, 2};
    int el = 0;
    for (int i = 0; i < 8; i++)
        el += (i % 3 ?: 5) * lut[i];
    long s = 0;
    for (int i = 0; i < 20; i++)
        s += next_val(i) ?: -1;
    int lim = 0;
    for (int i = 0; i < (lim ?: 6); i++)
        lim += i;
    printf("el=%d s=%ld calls=%d lim=%d\n", el, s, calls, lim);
    return 0;
}

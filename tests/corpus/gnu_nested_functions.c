/* gnu_nested_functions.c: GCC nested functions (a function defined inside another, capturing
 * the enclosing function's locals, passed as a callback). This is a GNU dialect our C parser
 * does not handle: s2s-cc is EXPECTED to fall back to the original file for it (with a
 * `s2s-cc: note:` line) and the program must still build and behave identically. */
#include <stdio.h>

static void apply_all(int *v, int n, void (*f)(int *))
{
    for (int i = 0; i < n; i++)
        f(&v[i]);
}

int main(void)
{
    int scale = 3, calls = 0;
    void mul(int *p)
    {
        *p *= scale;
        calls++;
    }
    int v[10];
    for (int i = 0; i < 10; i++)
        v[i] = i - 4;
    apply_all(v, 10, mul);
    scale = -2;
    apply_all(v, 10, mul);
    int s = 0;
    for (int i = 0; i < 10; i++)
        s = s * 3 + v[i];
    printf("s=%d calls=%d\n", s, calls);
    return 0;
}

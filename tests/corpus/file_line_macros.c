/* file_line_macros.c: __FILE__, __LINE__ and __func__ used inside and after loop nests, and
 * assert() (which embeds __FILE__/__LINE__) in loop bodies. After a loop nest is regenerated
 * with a different number of lines, the line numbering of everything that follows must be
 * resynchronised (#line) so __LINE__ still names the user's line; __FILE__ must be the path as
 * given on the command line, exactly as with the real compiler. */
#include <stdio.h>
#include <assert.h>

#define WHERE() printf("%s:%d in %s\n", __FILE__, __LINE__, __func__)

static int helper(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        assert(i >= 0 && i < n);
        s += i * __LINE__;
    }
    WHERE();
    return s;
}

int main(void)
{
    WHERE();
    int lines[4];
    for (int i = 0;
         i < 4;
         i++)
        lines[i] = __LINE__ + i;
    printf("after loop line %d, loop saw %d %d\n", __LINE__, lines[0], lines[3]);
    int acc = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
        {
            acc += i * j;
        }
    WHERE();
    printf("helper=%d acc=%d\n", helper(5), acc);
    WHERE();
    return 0;
}

/* varargs.c: variadic functions with <stdarg.h> (va_start/va_arg/va_end/va_copy), loops over
 * variadic arguments, a vprintf-based logger, sentinel-terminated lists, mixed int/double. */
#include <stdio.h>
#include <stdarg.h>

static double sum_doubles(int count, ...)
{
    va_list ap;
    double s = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

static long sum_until_zero(int first, ...)
{
    va_list ap;
    long s = first;
    int v;
    va_start(ap, first);
    while ((v = va_arg(ap, int)) != 0)
        s = s * 3 + v;
    va_end(ap);
    return s;
}

static int logf_count;
static void logmsg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[%d] ", ++logf_count);
    vprintf(fmt, ap);
    va_end(ap);
}

static void twice(const char *fmt, ...)
{
    va_list ap, cp;
    va_start(ap, fmt);
    va_copy(cp, ap);
    vprintf(fmt, ap);
    vprintf(fmt, cp);
    va_end(cp);
    va_end(ap);
}

/* format-driven: 'i' int, 'd' double, 's' string */
static double mixed(const char *spec, ...)
{
    va_list ap;
    double acc = 0;
    va_start(ap, spec);
    for (const char *p = spec; *p; p++) {
        switch (*p) {
        case 'i': acc = acc * 2 + va_arg(ap, int); break;
        case 'd': acc += va_arg(ap, double); break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            while (*s)
                acc += *s++ * 0.001;
            break;
        }
        }
    }
    va_end(ap);
    return acc;
}

int main(void)
{
    printf("%.17g\n", sum_doubles(5, 0.1, 0.2, 0.3, 0.4, 0.5));
    printf("%.17g\n", sum_doubles(0));
    printf("%ld\n", sum_until_zero(1, 2, 3, 4, 5, 6, 0));
    for (int i = 0; i < 4; i++)
        logmsg("i=%d sq=%d %s\n", i, i * i, i % 2 ? "odd" : "even");
    twice("pi~%.5f %c\n", 3.14159265, 'x');
    printf("mixed=%.17g\n", mixed("iidsi", 3, 4, 0.75, "abc", -2));
    return 0;
}

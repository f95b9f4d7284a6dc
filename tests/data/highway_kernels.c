#include <math.h>
void vsel(int n, double *restrict a, double *restrict b, double *restrict c)
{
  for (int i = 0; i < n; i++)
    c[i] = a[i] > 0.5 ? a[i] + b[i] : b[i] * 2.0;
}
void st1(int n, double *restrict a, double *restrict b)
{
  for (int i = 1; i < n - 1; i++)
    b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
}
void st2(int n, int m, double A[restrict n][m], double B[restrict n][m])
{
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
}
void rowup(int n, int m, double alpha, double A[restrict n][m], double *restrict u, double *restrict v)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = A[i][j] + alpha * u[i] * v[j];
}
void divsqrt(int n, double *restrict a, double *restrict b, double *restrict c)
{
  for (int i = 0; i < n; i++)
    c[i] = sqrt(a[i] * a[i] + b[i]) / (b[i] + 2.0);
}
void fsel(int n, float *restrict a, float *restrict b)
{
  for (int i = 0; i < n; i++)
    b[i] = a[i] < 1.0f ? -a[i] * 3.0f : a[i] - 1.0f;
}
void cond2(int n, int m, int k, double A[restrict n][m], double *restrict x)
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = A[i][j] * 0.5 + x[j];
      if (i == k)
        A[i][j] = A[i][j] + 1.0;
    }
}
void vne(int n, double *restrict a, double *restrict b, double *restrict c)
{
  for (int i = 0; i < n; i++)
    c[i] = a[i] != b[i] ? a[i] : b[i] * 0.5;
}

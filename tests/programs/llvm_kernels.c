/* Kernels in the shapes clang -O1 gives loops (rotated behind guards, exits on equality,
   linearized subscripts), lifted from LLVM IR by frontends/llvm: tests/test_llvm_frontend.py. */
#include <math.h>
void matvec_t(int n, double A[n][n], double B[n][n], double *x, double *y) {
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = 2.0 * A[i][j];
}
double norm(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}
void clip(int n, float *a, float lo, float hi) {
  for (int i = 0; i < n; i++) {
    if (a[i] < lo) a[i] = lo; else if (a[i] > hi) a[i] = hi;
  }
}
void jacobi(int steps, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
}
void gemm(int n, int m, int k, double alpha, double C[n][m], double A[n][k], double B[k][m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int p = 0; p < k; p++)
        C[i][j] += alpha * A[i][p] * B[p][j];
}
long strided(int n, int *v) {
  long s = 0;
  for (int i = 0; i < n; i += 3) { v[i] = v[i] * 2 + 1; s += v[i]; }
  for (int i = n - 1; i >= 0; i--) s = s * 3 + (unsigned)v[i] / 7u - (v[i] >> 2);
  return s;
}

// A small C++ solver of the kind s2s-c++ meets: a dense matrix class over std::vector<double>,
// a templated matrix product, a heat-diffusion stencil with references to its buffers, and a
// residual norm written into a reference. Prints checksums and the seconds the kernels took (last).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#ifndef N
#define N 640
#endif
#ifndef STEPS
#define STEPS 60
#endif

class Matrix {
 public:
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(static_cast<std::size_t>(rows) * cols) {}
  double &operator()(int i, int j) { return data_[static_cast<std::size_t>(i) * cols_ + j]; }
  double operator()(int i, int j) const { return data_[static_cast<std::size_t>(i) * cols_ + j]; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  int rows_, cols_;
  std::vector<double> data_;
};

// C = alpha * A * B + beta * C, for any element type the vectors hold
template <typename T>
void gemm(int n, T alpha, T beta, const std::vector<T> &a, const std::vector<T> &b, std::vector<T> &c) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      T sum = 0;
      for (int k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = alpha * sum + beta * c[i * n + j];
    }
}

// y = A^T x through the class's accessor
void transposed_product(const Matrix &a, const std::vector<double> &x, std::vector<double> &y) {
  for (int j = 0; j < a.cols(); j++) y[j] = 0.0;
  for (int i = 0; i < a.rows(); i++)
    for (int j = 0; j < a.cols(); j++) y[j] += a(i, j) * x[i];
}

// explicit heat diffusion, ping-ponged between two buffers the caller owns
void diffuse(std::vector<double> &u, std::vector<double> &v, int n, int steps, double nu) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        v[i * n + j] = u[i * n + j] + nu * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                                            u[i * n + j + 1] - 4.0 * u[i * n + j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) u[i * n + j] = v[i * n + j];
  }
}

// the squared norm of r = b - A x, into a reference
void residual(const std::vector<double> &a, const std::vector<double> &x, const std::vector<double> &b, int n,
              double &norm2) {
  norm2 = 0.0;
  for (int i = 0; i < n; i++) {
    double r = b[i];
    for (int j = 0; j < n; j++) r -= a[i * n + j] * x[j];
    norm2 += r * r;
  }
}

int main() {
  const int n = N;
  std::vector<double> a(n * n), b(n * n), c(n * n), x(n), rhs(n), y(n);
  for (int i = 0; i < n; i++) {
    x[i] = 1.0 + (i % 13) * 0.125;
    rhs[i] = (i % 7) * 0.5;
    for (int j = 0; j < n; j++) {
      a[i * n + j] = ((i * 7 + j * 3) % 17) * 0.0625;
      b[i * n + j] = ((i + 2 * j) % 11) * 0.125 - 0.5;
      c[i * n + j] = (i == j) ? 1.0 : 0.0;
    }
  }
  std::vector<float> af(n * n), bf(n * n), cf(n * n);
  for (int k = 0; k < n * n; k++) {
    af[k] = static_cast<float>(a[k]);
    bf[k] = static_cast<float>(b[k]);
  }
  Matrix m(n, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) m(i, j) = a[i * n + j] - b[j * n + i];
  std::vector<double> u(n * n), v(n * n);
  for (int k = 0; k < n * n; k++) u[k] = v[k] = (k % 97 == 0) ? 100.0 : 0.0;

  auto t0 = std::chrono::steady_clock::now();
  gemm(n, 1.5, 0.5, a, b, c);
  gemm(n, 2.0f, 0.0f, af, bf, cf);
  transposed_product(m, x, y);
  diffuse(u, v, n, STEPS, 0.2);
  double norm2 = 0.0;
  residual(c, x, rhs, n, norm2);
  auto t1 = std::chrono::steady_clock::now();

  double sc = 0, sf = 0, sy = 0, su = 0;
  for (int k = 0; k < n * n; k++) {
    sc += c[k];
    sf += cf[k];
    su += u[k];
  }
  for (int i = 0; i < n; i++) sy += y[i];
  std::printf("%.6e %.6e %.6e %.6e %.6e\n", sc, sf, sy, su, std::sqrt(norm2));
  std::printf("%.4f\n", std::chrono::duration<double>(t1 - t0).count());
  return 0;
}

! A program over fortran_kernels.f90's kernels, for timing them: the product of two 1200 x 1200
! matrices, then 50 steps of the heat stencil. Prints the seconds of each and checksums.
!   flang-new-16 -O2 -march=native fortran_kernels.f90 fortran_main.f90 -L/usr/lib/llvm-16/lib -o ref
!   s2s-fc flang-new-16 -O2 -march=native fortran_kernels.f90 fortran_main.f90 -L/usr/lib/llvm-16/lib -o opt
program main
  use kernels
  implicit none
  integer, parameter :: n = 1200
  real(8), allocatable :: a(:,:), b(:,:), c(:,:), u(:,:), v(:,:)
  integer :: i, j, t0, t1, t2, rate
  allocate(a(n, n), b(n, n), c(n, n), u(n, n), v(n, n))
  do j = 1, n
    do i = 1, n
      a(i, j) = mod(i * 7 + j * 3, 17) * 0.0625d0
      b(i, j) = mod(i + 2 * j, 11) * 0.125d0 - 0.5d0
      c(i, j) = 0.0d0
      u(i, j) = 0.0d0
      if (mod(i * j, 97) == 0) u(i, j) = 100.0d0
      v(i, j) = u(i, j)
    end do
  end do
  call system_clock(t0, rate)
  call product(a, b, c, n)
  call system_clock(t1)
  call heat(u, v, n, 50)
  call system_clock(t2)
  print '(2ES24.16)', sum(c), sum(u)
  print '(A, F8.4, A, F8.4)', 'product ', real(t1 - t0) / real(rate), '  heat ', real(t2 - t1) / real(rate)
end program

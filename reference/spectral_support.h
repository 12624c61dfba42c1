// Jacobi eigendecomposition and SVD of single matrices in doubles, shared by
// the reference kernels of linalg_spectral.cc and linalg_spectral_uses.cc.
#ifndef PT2ONNX_REFERENCE_SPECTRAL_SUPPORT_H_
#define PT2ONNX_REFERENCE_SPECTRAL_SUPPORT_H_

#include <cstdint>
#include <vector>

namespace pt2onnx::reference {

// Eigenvalues ascending and eigenvectors (columns of vecs, n x n row-major)
// of the symmetric a (n x n row-major; overwritten).
void EighOne(std::vector<double>& a, int64_t n, std::vector<double>& vals, std::vector<double>& vecs);

struct SvdResult {
  std::vector<double> u, s, v;  // u (m, k), s (k) descending, v (n, k) row-major; k = min(m, n)
};

// The thin SVD of the row-major (m, n) matrix a; the U column of a zero
// singular value is zero.
SvdResult SvdOne(const double* a, int64_t m, int64_t n);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_SPECTRAL_SUPPORT_H_

// Prints torch.linspace(start, end, steps) as float32 bit patterns, using libtorch's own kernel.
// Build against the torch 1.12.1 wheel (PyPI torch-1.12.1-cp310-cp310-manylinux1_x86_64.whl, unzipped):
//   g++ -O1 -std=c++14 -D_GLIBCXX_USE_CXX11_ABI=0 -I$T/include torch_linspace.cpp -o torch_linspace \
//       -L$T/lib -ltorch_cpu -lc10 -Wl,-rpath,$T/lib -Wl,-rpath-link,$T/lib
// Input lines: "<start as f64 hex bits> <end as f64 hex bits> <steps>"; output: one line of hex bits per input.
#include <ATen/ATen.h>
#include <cstdio>
#include <cstring>

int main() {
  unsigned long long a, b;
  long long n;
  while (scanf("%llx %llx %lld", &a, &b, &n) == 3) {
    double s, e;
    memcpy(&s, &a, 8);
    memcpy(&e, &b, 8);
    // No dtype given in metric.py: torch's default dtype, float32.
    at::Tensor t = at::linspace(at::Scalar(s), at::Scalar(e), n, at::TensorOptions().dtype(at::kFloat));
    const float* p = t.data_ptr<float>();
    for (long long i = 0; i < n; i++) {
      unsigned int u;
      memcpy(&u, p + i, 4);
      printf("%08x", u);
    }
    printf("\n");
  }
  return 0;
}

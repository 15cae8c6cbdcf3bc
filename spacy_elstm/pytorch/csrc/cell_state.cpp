// CPU kernels for the cells with a cell state (lstm, elstm, elstm2): one
// matrix product and one fused elementwise pass per step, forward and backward.
// The maths is that of spacy_elstm/pytorch/cells.py; the Python side checks
// the two against each other. Layout: time-major, sorted by decreasing length,
// step t runs the first sizes[t] rows; gates are [i, f, g, o] or [i, g, o].
#include <torch/extension.h>

#include <ATen/Parallel.h>
#include <cmath>
#include <vector>

namespace {

template <typename T>
inline T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

inline int64_t grain(int64_t width) {
  // rows per task: keep tasks above ~16k elements so threads pay off
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, width));
}

template <typename T>
void forward_step(const T* a, const T* c_prev, const T* scale, const T* bias, T* act, T* c,
                  T* tc, T* h, int64_t rows, int64_t n, bool has_forget) {
  const int64_t gates = has_forget ? 4 : 3;
  const int64_t gi = 0, gf = n, gg = has_forget ? 2 * n : n, go = has_forget ? 3 * n : 2 * n;
  at::parallel_for(0, rows, grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* ar = a + r * gates * n;
      T* actr = act + r * gates * n;
      for (int64_t j = 0; j < n; ++j) {
        const T i = sigmoid(ar[gi + j]);
        const T g = std::tanh(ar[gg + j]);
        const T o = sigmoid(ar[go + j]);
        T u = i * g;
        if (scale) u *= scale[j];
        T cv = u;
        if (c_prev) {
          if (has_forget) {
            const T f = sigmoid(ar[gf + j]);
            actr[gf + j] = f;
            cv += f * c_prev[r * n + j];
          } else {
            cv += c_prev[r * n + j];
          }
        } else if (has_forget) {
          actr[gf + j] = sigmoid(ar[gf + j]);
        }
        const T t = std::tanh(bias ? cv + bias[j] : cv);
        actr[gi + j] = i;
        actr[gg + j] = g;
        actr[go + j] = o;
        c[r * n + j] = cv;
        tc[r * n + j] = t;
        h[r * n + j] = o * t;
      }
    }
  });
}

template <typename T>
void backward_step(const T* d_h_out, const T* d_h_rec, int64_t rows_rec, const T* act,
                   const T* c_prev, const T* tc, const T* scale, T* d_c_buf, int64_t rows_next,
                   T* d_pre, T* d_c_out, T* d_z_out, int64_t rows, int64_t n, bool has_forget) {
  const int64_t gates = has_forget ? 4 : 3;
  const int64_t gi = 0, gf = n, gg = has_forget ? 2 * n : n, go = has_forget ? 3 * n : 2 * n;
  at::parallel_for(0, rows, grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* actr = act + r * gates * n;
      T* dr = d_pre + r * gates * n;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t e = r * n + j;
        T dh = d_h_out[e];
        if (d_h_rec && r < rows_rec) dh += d_h_rec[e];
        const T i = actr[gi + j], g = actr[gg + j], o = actr[go + j];
        const T t = tc[e];
        const T dz = dh * o * (T(1) - t * t);
        T dc = dz + (r < rows_next ? d_c_buf[e] : T(0));
        const T du = scale ? dc * scale[j] : dc;
        dr[gi + j] = du * g * i * (T(1) - i);
        dr[gg + j] = du * i * (T(1) - g * g);
        dr[go + j] = dh * t * o * (T(1) - o);
        if (has_forget) {
          const T f = actr[gf + j];
          dr[gf + j] = c_prev ? dc * c_prev[e] * f * (T(1) - f) : T(0);
          d_c_buf[e] = dc * f;
        } else {
          d_c_buf[e] = dc;
        }
        d_c_out[e] = dc;
        d_z_out[e] = dz;
      }
    }
  });
}

}  // namespace

// Returns {h, c, tanh(c + b), activated gates}, each (T, B, .), zero at padding.
std::vector<torch::Tensor> cell_state_forward(torch::Tensor proj, c10::optional<torch::Tensor> weight_h,
                                              c10::optional<torch::Tensor> scale_rows,
                                              c10::optional<torch::Tensor> state_bias,
                                              std::vector<int64_t> sizes, bool has_forget) {
  proj = proj.contiguous();
  const int64_t steps = proj.size(0), batch = proj.size(1), width = proj.size(2);
  const int64_t n = width / (has_forget ? 4 : 3);
  auto hs = torch::zeros({steps, batch, n}, proj.options());
  auto cs = torch::zeros_like(hs);
  auto tcs = torch::zeros_like(hs);
  auto acts = torch::zeros_like(proj);
  torch::Tensor w_t, scale, bias;
  if (weight_h) w_t = weight_h->t();
  if (scale_rows) scale = scale_rows->contiguous();
  if (state_bias) bias = state_bias->contiguous();
  AT_DISPATCH_FLOATING_TYPES(proj.scalar_type(), "cell_state_forward", [&] {
    for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
      const int64_t k = sizes[t];
      torch::Tensor a = proj[t].narrow(0, 0, k);
      if (w_t.defined() && t > 0) a = torch::addmm(a, hs[t - 1].narrow(0, 0, k), w_t);
      a = a.contiguous();
      forward_step<scalar_t>(a.data_ptr<scalar_t>(), t > 0 ? cs[t - 1].data_ptr<scalar_t>() : nullptr,
                             scale.defined() ? scale[t].data_ptr<scalar_t>() : nullptr,
                             bias.defined() ? bias.data_ptr<scalar_t>() : nullptr,
                             acts[t].data_ptr<scalar_t>(), cs[t].data_ptr<scalar_t>(),
                             tcs[t].data_ptr<scalar_t>(), hs[t].data_ptr<scalar_t>(), k, n, has_forget);
    }
  });
  return {hs, cs, tcs, acts};
}

// Returns {d pre-activations (T, B, G*N), d c (T, B, N), d (c + b) through tanh (T, B, N)}.
std::vector<torch::Tensor> cell_state_backward(torch::Tensor d_hs, torch::Tensor acts, torch::Tensor cs,
                                               torch::Tensor tcs, c10::optional<torch::Tensor> weight_h,
                                               c10::optional<torch::Tensor> scale_rows,
                                               std::vector<int64_t> sizes, bool has_forget) {
  d_hs = d_hs.contiguous();
  const int64_t steps = cs.size(0), batch = cs.size(1), n = cs.size(2);
  auto d_pre = torch::zeros_like(acts);
  auto d_cs = torch::zeros_like(cs);
  auto d_zs = torch::zeros_like(cs);
  auto d_c_buf = torch::zeros({batch, n}, cs.options());
  torch::Tensor w, scale;
  if (weight_h) w = weight_h->contiguous();
  if (scale_rows) scale = scale_rows->contiguous();
  const int64_t last = (int64_t)sizes.size() - 1;
  AT_DISPATCH_FLOATING_TYPES(cs.scalar_type(), "cell_state_backward", [&] {
    for (int64_t t = last; t >= 0; --t) {
      const int64_t k = sizes[t];
      const int64_t k_next = t < last ? sizes[t + 1] : 0;
      torch::Tensor d_h_rec;
      if (w.defined() && k_next > 0) d_h_rec = torch::mm(d_pre[t + 1].narrow(0, 0, k_next), w);
      backward_step<scalar_t>(d_hs[t].data_ptr<scalar_t>(),
                              d_h_rec.defined() ? d_h_rec.data_ptr<scalar_t>() : nullptr, k_next,
                              acts[t].data_ptr<scalar_t>(),
                              t > 0 ? cs[t - 1].data_ptr<scalar_t>() : nullptr,
                              tcs[t].data_ptr<scalar_t>(),
                              scale.defined() ? scale[t].data_ptr<scalar_t>() : nullptr,
                              d_c_buf.data_ptr<scalar_t>(), k_next, d_pre[t].data_ptr<scalar_t>(),
                              d_cs[t].data_ptr<scalar_t>(), d_zs[t].data_ptr<scalar_t>(), k, n,
                              has_forget);
    }
  });
  return {d_pre, d_cs, d_zs};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &cell_state_forward, "cell-state recurrence, forward (CPU)");
  m.def("backward", &cell_state_backward, "cell-state recurrence, backward through time (CPU)");
}

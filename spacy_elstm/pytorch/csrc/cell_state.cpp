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

// c = f * c_prev + s * i * g on activated gates; writes c and c + b (tanh comes after,
// vectorised by ATen: scalar exp and tanh here would dominate the step).
template <typename T>
void cell_step(const T* act, const T* c_prev, const T* scale, const T* bias, T* c, T* pre_tc,
               int64_t rows, int64_t n, bool has_forget) {
  const int64_t gates = has_forget ? 4 : 3;
  const int64_t gf = n, gg = has_forget ? 2 * n : n;
  at::parallel_for(0, rows, grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* actr = act + r * gates * n;
      for (int64_t j = 0; j < n; ++j) {
        T cv = actr[j] * actr[gg + j];
        if (scale) cv *= scale[j];
        if (c_prev) cv += has_forget ? actr[gf + j] * c_prev[r * n + j] : c_prev[r * n + j];
        c[r * n + j] = cv;
        pre_tc[r * n + j] = bias ? cv + bias[j] : cv;
      }
    }
  });
}

// One step back through time. Per row, d_c_buf holds f_(t+1) * dc_(t+1) for the
// rows that ran at t+1 (rows < rows_next); d_h_rec holds W_h^T dA_(t+1) for them.
// Outputs: d_pre (gate pre-activations), d_su = dc * i * g (for s), d_z = dh * o * tanh'.
template <typename T, bool HasForget>
void backward_step(const T* d_h_out, const T* d_h_rec, const T* act, const T* c_prev,
                   const T* tc, const T* scale, T* d_c_buf, int64_t rows_next, T* d_pre, T* d_su,
                   T* d_z, int64_t rows, int64_t n) {
  constexpr int64_t gates = HasForget ? 4 : 3;
  const int64_t gf = n, gg = HasForget ? 2 * n : n, go = HasForget ? 3 * n : 2 * n;
  at::parallel_for(0, rows, grain(n), [&](int64_t begin, int64_t end) {
    std::vector<T> zeros(n, T(0));
    for (int64_t r = begin; r < end; ++r) {
      const T* __restrict__ ar = act + r * gates * n;
      T* __restrict__ dr = d_pre + r * gates * n;
      const T* __restrict__ dho = d_h_out + r * n;
      const T* __restrict__ dhr = (d_h_rec && r < rows_next) ? d_h_rec + r * n : zeros.data();
      const bool running_next = r < rows_next;
      const T* __restrict__ cp = c_prev ? c_prev + r * n : zeros.data();
      const T* __restrict__ tcr = tc + r * n;
      T* __restrict__ dcb = d_c_buf + r * n;
      T* __restrict__ dsu = d_su + r * n;
      T* __restrict__ dz = d_z + r * n;
      if (!running_next) std::fill(dcb, dcb + n, T(0));
      for (int64_t j = 0; j < n; ++j) {
        const T dh = dho[j] + dhr[j];
        const T i = ar[j], g = ar[gg + j], o = ar[go + j];
        const T t = tcr[j];
        const T z = dh * o * (T(1) - t * t);
        const T dc = z + dcb[j];
        const T du = scale ? dc * scale[j] : dc;
        dr[j] = du * g * i * (T(1) - i);
        dr[gg + j] = du * i * (T(1) - g * g);
        dr[go + j] = dh * t * o * (T(1) - o);
        if constexpr (HasForget) {
          const T f = ar[gf + j];
          dr[gf + j] = dc * cp[j] * f * (T(1) - f);
          dcb[j] = dc * f;
        } else {
          dcb[j] = dc;
        }
        dsu[j] = dc * i * g;
        dz[j] = z;
      }
    }
  });
}

// An uninitialised tensor shaped like `like` (T, B, .) whose padded rows are zero.
torch::Tensor empty_zero_padding(const torch::Tensor& like, const std::vector<int64_t>& sizes) {
  auto out = torch::empty_like(like);
  const int64_t batch = like.size(1);
  for (int64_t t = 0; t < like.size(0); ++t) {
    const int64_t k = t < (int64_t)sizes.size() ? sizes[t] : 0;
    if (k < batch) out[t].narrow(0, k, batch - k).zero_();
  }
  return out;
}

}  // namespace

// Activated gates [sigmoid, tanh for g] of pre-activations a, written into act.
void activate(const torch::Tensor& a, torch::Tensor act, int64_t n, bool has_forget) {
  const int64_t gg = has_forget ? 2 * n : n;
  at::sigmoid_out(act, a);
  auto g = act.narrow(-1, gg, n);
  at::tanh_out(g, a.narrow(-1, gg, n));
}

// Returns {h, c, tanh(c + b), activated gates}, each (T, B, .), zero at padding.
std::vector<torch::Tensor> cell_state_forward(torch::Tensor proj, c10::optional<torch::Tensor> weight_h,
                                              c10::optional<torch::Tensor> scale_rows,
                                              c10::optional<torch::Tensor> state_bias,
                                              std::vector<int64_t> sizes, bool has_forget) {
  proj = proj.contiguous();
  const int64_t steps = proj.size(0), batch = proj.size(1), width = proj.size(2);
  const int64_t n = width / (has_forget ? 4 : 3);
  const int64_t go = has_forget ? 3 * n : 2 * n;
  auto hs = empty_zero_padding(torch::empty({steps, batch, n}, proj.options()), sizes);
  auto cs = empty_zero_padding(hs, sizes);
  auto tcs = empty_zero_padding(hs, sizes);
  auto acts = empty_zero_padding(proj, sizes);
  torch::Tensor w_t, scale, bias;
  const bool recurrent = weight_h.has_value();
  if (recurrent) w_t = weight_h->t();
  if (scale_rows) scale = scale_rows->contiguous();
  if (state_bias) bias = state_bias->contiguous();
  if (!recurrent) activate(proj, acts, n, has_forget);  // every gate known up front
  AT_DISPATCH_FLOATING_TYPES(proj.scalar_type(), "cell_state_forward", [&] {
    for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
      const int64_t k = sizes[t];
      auto act = acts[t].narrow(0, 0, k);
      if (recurrent) {
        auto a = proj[t].narrow(0, 0, k);
        if (t > 0) a = torch::addmm(a, hs[t - 1].narrow(0, 0, k), w_t);
        activate(a, act, n, has_forget);
      }
      cell_step<scalar_t>(act.data_ptr<scalar_t>(), t > 0 ? cs[t - 1].data_ptr<scalar_t>() : nullptr,
                          scale.defined() ? scale[t].data_ptr<scalar_t>() : nullptr,
                          bias.defined() ? bias.data_ptr<scalar_t>() : nullptr,
                          cs[t].data_ptr<scalar_t>(), tcs[t].data_ptr<scalar_t>(), k, n, has_forget);
      if (recurrent) {
        auto tc = tcs[t].narrow(0, 0, k);
        tc.tanh_();
        auto h = hs[t].narrow(0, 0, k);
        at::mul_out(h, act.narrow(-1, go, n), tc);
      }
    }
  });
  if (!recurrent) {  // tanh and output gate for all steps at once, then clear padding
    tcs.tanh_();
    at::mul_out(hs, acts.narrow(-1, go, n), tcs);
    for (int64_t t = 0; t < steps; ++t) {
      if (sizes[t] < batch) {
        hs[t].narrow(0, sizes[t], batch - sizes[t]).zero_();
        tcs[t].narrow(0, sizes[t], batch - sizes[t]).zero_();
        acts[t].narrow(0, sizes[t], batch - sizes[t]).zero_();
      }
    }
  }
  return {hs, cs, tcs, acts};
}

// Returns {d pre-activations (T, B, G*N), dc * i * g (T, B, N), d (c + b) (T, B, N)},
// zero at padding.
std::vector<torch::Tensor> cell_state_backward(torch::Tensor d_hs, torch::Tensor acts, torch::Tensor cs,
                                               torch::Tensor tcs, c10::optional<torch::Tensor> weight_h,
                                               c10::optional<torch::Tensor> scale_rows,
                                               std::vector<int64_t> sizes, bool has_forget) {
  d_hs = d_hs.contiguous();
  const int64_t batch = cs.size(1), n = cs.size(2);
  auto d_pre = empty_zero_padding(acts, sizes);
  auto d_su = empty_zero_padding(cs, sizes);
  auto d_zs = empty_zero_padding(cs, sizes);
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
      auto step = has_forget ? backward_step<scalar_t, true> : backward_step<scalar_t, false>;
      step(d_hs[t].data_ptr<scalar_t>(), d_h_rec.defined() ? d_h_rec.data_ptr<scalar_t>() : nullptr,
           acts[t].data_ptr<scalar_t>(), t > 0 ? cs[t - 1].data_ptr<scalar_t>() : nullptr,
           tcs[t].data_ptr<scalar_t>(), scale.defined() ? scale[t].data_ptr<scalar_t>() : nullptr,
           d_c_buf.data_ptr<scalar_t>(), k_next, d_pre[t].data_ptr<scalar_t>(),
           d_su[t].data_ptr<scalar_t>(), d_zs[t].data_ptr<scalar_t>(), k, n);
    }
  });
  return {d_pre, d_su, d_zs};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &cell_state_forward, "cell-state recurrence, forward (CPU)");
  m.def("backward", &cell_state_backward, "cell-state recurrence, backward through time (CPU)");
}

// CPU kernels for the cells with a cell state (lstm, elstm, elstm2). The maths
// is that of spacy_elstm/pytorch/cells.py; the Python side checks the two
// against each other.
//
// Layout: time-major, sorted by decreasing length; step t runs the first
// sizes[t] rows; gates are [i, f, g, o] (lstm, elstm) or [i, g, o] (elstm2).
//
// A step is one pass over each running row that applies the nonlinearities,
// updates c and computes h, vectorised with ATen's Vectorized<T> (the exp of
// torch.sigmoid). With gates="recurrent" each
// step also makes one matrix product, through oneDNN where the caller hands
// over a packed weight. With gates="input" nothing couples the rows, so each
// thread takes whole rows and runs them through time on its own.
#include <torch/extension.h>

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <vector>

namespace {

using at::vec::Vectorized;

template <typename T>
inline Vectorized<T> sigmoid(const Vectorized<T>& x) {
  return (Vectorized<T>(T(1)) + x.neg().exp()).reciprocal();
}

// tanh(x) = 1 - 2 / (exp(2x) + 1): one exp, several times faster than Sleef's
// tanh; the absolute error stays within a few units in the last place of 1.
template <typename T>
inline Vectorized<T> tanh(const Vectorized<T>& x) {
  const Vectorized<T> one(T(1)), two(T(2));
  return one - two / ((x + x).exp() + one);
}

// Loads and stores of up to one vector, for the tail of a row.
template <typename T>
struct Lanes {
  int64_t m;
  Vectorized<T> load(const T* p) const {
    return m == Vectorized<T>::size() ? Vectorized<T>::loadu(p) : Vectorized<T>::loadu(p, m);
  }
  void store(const Vectorized<T>& v, T* p) const {
    if (m == Vectorized<T>::size()) v.store(p); else v.store(p, m);
  }
};

// Rows per task: about 2k elements of a hidden state per task.
inline int64_t grain(int64_t n) { return std::max<int64_t>(1, 2048 / std::max<int64_t>(1, n)); }

// One step forward of one row. a: pre-activations; cp: c_(t-1) or null at the
// first step; s: s_ts or null; b: the state bias or null. Writes the activated
// gates, c, tanh(c + b) and h = o * tanh(c + b).
template <typename T, bool HasForget>
void forward_row(const T* a, const T* cp, const T* s, const T* b, T* act, T* c, T* tc, T* h,
                 int64_t n) {
  using V = Vectorized<T>;
  const int64_t gf = n, gg = HasForget ? 2 * n : n, go = HasForget ? 3 * n : 2 * n;
  for (int64_t j = 0; j < n; j += V::size()) {
    const Lanes<T> l{std::min<int64_t>(V::size(), n - j)};
    const V i = sigmoid(l.load(a + j));
    const V g = tanh(l.load(a + gg + j));
    const V o = sigmoid(l.load(a + go + j));
    V cv = i * g;
    if (s) cv = cv * l.load(s + j);
    if constexpr (HasForget) {
      const V f = sigmoid(l.load(a + gf + j));
      l.store(f, act + gf + j);
      if (cp) cv = f * l.load(cp + j) + cv;
    } else {
      if (cp) cv = l.load(cp + j) + cv;
    }
    const V t = tanh(b ? cv + l.load(b + j) : cv);
    l.store(i, act + j);
    l.store(g, act + gg + j);
    l.store(o, act + go + j);
    l.store(cv, c + j);
    l.store(t, tc + j);
    l.store(o * t, h + j);
  }
}

// One step back through time of one row. dho: dL/dh_t from above; dhr:
// W_h^T dA_(t+1) or null; dcb: in, f_(t+1) * dc_(t+1) (zero where the row ended
// at t); out, f_t * dc_t. Writes d_pre (pre-activations), d_su = dc * i * g
// (for s) and d_z = d tanh(c + b) / d(c + b) * dh * o.
template <typename T, bool HasForget>
void backward_row(const T* dho, const T* dhr, const T* act, const T* cp, const T* tc,
                  const T* s, T* dcb, T* dr, T* dsu, T* dz, int64_t n) {
  using V = Vectorized<T>;
  const V one(T(1)), zero(T(0));
  const int64_t gf = n, gg = HasForget ? 2 * n : n, go = HasForget ? 3 * n : 2 * n;
  for (int64_t j = 0; j < n; j += V::size()) {
    const Lanes<T> l{std::min<int64_t>(V::size(), n - j)};
    const V dh = dhr ? l.load(dho + j) + l.load(dhr + j) : l.load(dho + j);
    const V i = l.load(act + j), g = l.load(act + gg + j), o = l.load(act + go + j);
    const V t = l.load(tc + j);
    const V z = dh * o * (one - t * t);
    const V dc = z + l.load(dcb + j);
    const V du = s ? dc * l.load(s + j) : dc;
    l.store(du * g * i * (one - i), dr + j);
    l.store(du * i * (one - g * g), dr + gg + j);
    l.store(dh * t * o * (one - o), dr + go + j);
    if constexpr (HasForget) {
      const V f = l.load(act + gf + j);
      l.store(cp ? dc * l.load(cp + j) * f * (one - f) : zero, dr + gf + j);
      l.store(dc * f, dcb + j);
    } else {
      l.store(dc, dcb + j);
    }
    l.store(dc * i * g, dsu + j);
    l.store(z, dz + j);
  }
}

// x @ w^T through oneDNN (w packed by mkldnn::_reorder_linear_weight), plus
// `other` where given; the op is looked up by name, so nothing links to it.
at::Tensor onednn_linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor* other) {
  static const auto plain =
      c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn::_linear_pointwise", "");
  static const auto binary =
      c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn::_linear_pointwise", "binary");
  torch::jit::Stack stack;
  if (other) {
    stack = {x, *other, w, c10::IValue(), std::string("add")};
    binary.callBoxed(&stack);
  } else {
    stack = {x, w, c10::IValue(), std::string("none"),
             c10::List<std::optional<at::Scalar>>(), c10::IValue()};
    plain.callBoxed(&stack);
  }
  return stack[0].toTensor();
}

// An uninitialised tensor shaped like `like` (T, B, .) whose padded rows are zero.
torch::Tensor empty_zero_padding(const torch::Tensor& like, const std::vector<int64_t>& sizes) {
  auto out = torch::empty_like(like, at::MemoryFormat::Contiguous);
  const int64_t batch = like.size(1);
  for (int64_t t = 0; t < like.size(0); ++t) {
    const int64_t k = t < (int64_t)sizes.size() ? sizes[t] : 0;
    if (k < batch) out[t].narrow(0, k, batch - k).zero_();
  }
  return out;
}

// Each row's length, from the running rows per step.
std::vector<int64_t> row_lengths(const std::vector<int64_t>& sizes, int64_t batch) {
  std::vector<int64_t> lengths(batch, 0);
  for (int64_t k : sizes)
    for (int64_t r = 0; r < k; ++r) ++lengths[r];
  return lengths;
}

template <typename T>
const T* ptr_or_null(const torch::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace

// Returns {h, c, tanh(c + b), activated gates}, each (T, B, .), zero at padding.
// weight_h: (G*N, N), or none for gates="input"; packed: weight_h packed for
// oneDNN, or none for torch::addmm; scale_rows: s_ts per step, (T, N), or none.
std::vector<torch::Tensor> cell_state_forward(torch::Tensor proj,
                                              c10::optional<torch::Tensor> weight_h,
                                              c10::optional<torch::Tensor> packed,
                                              c10::optional<torch::Tensor> scale_rows,
                                              c10::optional<torch::Tensor> state_bias,
                                              std::vector<int64_t> sizes, bool has_forget) {
  proj = proj.contiguous();
  const int64_t batch = proj.size(1), width = proj.size(2);
  const int64_t gates = has_forget ? 4 : 3, n = width / gates;
  auto hs = empty_zero_padding(torch::empty({proj.size(0), batch, n}, proj.options()), sizes);
  auto cs = empty_zero_padding(hs, sizes);
  auto tcs = empty_zero_padding(hs, sizes);
  auto acts = empty_zero_padding(proj, sizes);
  torch::Tensor scale, bias, w_t;
  if (scale_rows) scale = scale_rows->contiguous();
  if (state_bias) bias = state_bias->contiguous();
  if (weight_h && !packed) w_t = weight_h->t();
  AT_DISPATCH_FLOATING_TYPES(proj.scalar_type(), "cell_state_forward", [&] {
    using T = scalar_t;
    auto row = has_forget ? forward_row<T, true> : forward_row<T, false>;
    const T *s0 = ptr_or_null<T>(scale), *b = ptr_or_null<T>(bias);
    T *c0 = cs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>(), *h0 = hs.data_ptr<T>();
    T* act0 = acts.data_ptr<T>();
    const int64_t sn = batch * n, sg = batch * width;  // strides of one step
    if (!weight_h) {  // every row on its own through time
      const auto lengths = row_lengths(sizes, batch);
      const T* a0 = proj.data_ptr<T>();
      at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          for (int64_t t = 0; t < lengths[r]; ++t) {
            const int64_t on = t * sn + r * n, og = t * sg + r * width;
            row(a0 + og, t > 0 ? c0 + on - sn : nullptr, s0 ? s0 + t * n : nullptr, b,
                act0 + og, c0 + on, tc0 + on, h0 + on, n);
          }
      });
      return;
    }
    for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
      const int64_t k = sizes[t];
      torch::Tensor a = proj[t].narrow(0, 0, k);
      if (t > 0) {
        auto h_prev = hs[t - 1].narrow(0, 0, k);
        a = packed ? onednn_linear(h_prev, *packed, &a) : torch::addmm(a, h_prev, w_t);
        a = a.contiguous();
      }
      const T* ap = a.data_ptr<T>();
      at::parallel_for(0, k, grain(n), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t on = t * sn + r * n, og = t * sg + r * width;
          row(ap + r * width, t > 0 ? c0 + on - sn : nullptr, s0 ? s0 + t * n : nullptr, b,
              act0 + og, c0 + on, tc0 + on, h0 + on, n);
        }
      });
    }
  });
  return {hs, cs, tcs, acts};
}

// Returns {d pre-activations (T, B, G*N), dc * i * g (T, B, N), d (c + b) (T, B, N)},
// zero at padding. packed_t: weight_h^T packed for oneDNN, or none for torch::mm.
std::vector<torch::Tensor> cell_state_backward(torch::Tensor d_hs, torch::Tensor acts,
                                               torch::Tensor cs, torch::Tensor tcs,
                                               c10::optional<torch::Tensor> weight_h,
                                               c10::optional<torch::Tensor> packed_t,
                                               c10::optional<torch::Tensor> scale_rows,
                                               std::vector<int64_t> sizes, bool has_forget) {
  d_hs = d_hs.contiguous();
  const int64_t batch = cs.size(1), n = cs.size(2), width = acts.size(2);
  auto d_pre = empty_zero_padding(acts, sizes);
  auto d_su = empty_zero_padding(cs, sizes);
  auto d_zs = empty_zero_padding(cs, sizes);
  auto d_c_buf = torch::zeros({batch, n}, cs.options());
  torch::Tensor w, scale;
  if (weight_h && !packed_t) w = weight_h->contiguous();
  if (scale_rows) scale = scale_rows->contiguous();
  const int64_t last = (int64_t)sizes.size() - 1;
  AT_DISPATCH_FLOATING_TYPES(cs.scalar_type(), "cell_state_backward", [&] {
    using T = scalar_t;
    auto row = has_forget ? backward_row<T, true> : backward_row<T, false>;
    const T *s0 = ptr_or_null<T>(scale), *dho0 = d_hs.data_ptr<T>();
    const T *act0 = acts.data_ptr<T>(), *c0 = cs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>();
    T *dr0 = d_pre.data_ptr<T>(), *dsu0 = d_su.data_ptr<T>(), *dz0 = d_zs.data_ptr<T>();
    T* dcb0 = d_c_buf.data_ptr<T>();
    const int64_t sn = batch * n, sg = batch * width;
    auto step_row = [&](int64_t t, int64_t r, const T* dhr) {
      const int64_t on = t * sn + r * n, og = t * sg + r * width;
      row(dho0 + on, dhr, act0 + og, t > 0 ? c0 + on - sn : nullptr, tc0 + on,
          s0 ? s0 + t * n : nullptr, dcb0 + r * n, dr0 + og, dsu0 + on, dz0 + on, n);
    };
    if (!weight_h) {  // every row on its own, back through time
      const auto lengths = row_lengths(sizes, batch);
      at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          for (int64_t t = lengths[r] - 1; t >= 0; --t) step_row(t, r, nullptr);
      });
      return;
    }
    for (int64_t t = last; t >= 0; --t) {
      const int64_t k = sizes[t];
      const int64_t k_next = t < last ? sizes[t + 1] : 0;
      torch::Tensor d_h_rec;
      if (k_next > 0) {
        auto d_next = d_pre[t + 1].narrow(0, 0, k_next);
        d_h_rec = (packed_t ? onednn_linear(d_next, *packed_t, nullptr) : torch::mm(d_next, w))
                      .contiguous();
      }
      if (k_next < k) d_c_buf.narrow(0, k_next, k - k_next).zero_();  // rows ending at t
      const T* dhr0 = d_h_rec.defined() ? d_h_rec.data_ptr<T>() : nullptr;
      at::parallel_for(0, k, grain(n), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) step_row(t, r, r < k_next ? dhr0 + r * n : nullptr);
      });
    }
  });
  return {d_pre, d_su, d_zs};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &cell_state_forward, "cell-state recurrence, forward (CPU)");
  m.def("backward", &cell_state_backward, "cell-state recurrence, backward through time (CPU)");
}

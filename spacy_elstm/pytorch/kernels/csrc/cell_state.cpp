// CPU kernels for the cells with a cell state (lstm, elstm, elstm2; the
// second-order solstm at the end). The maths is that of
// spacy_elstm/pytorch/cells.py; the Python side checks the two against each other.
//
// Layout: packed (see packing.py): step t owns sizes[t] rows, right after
// those of step t - 1, longest sequence first; no padding is stored. Where each
// gate sits in a row comes from the cell table (cells.py, Cell.state_gates):
// the blocks of i, f, g, o, each n wide, with f = -1 for a cell without a
// forget gate (elstm2); the kernels read them through a Gates.
//
// A step is one pass over each running row that applies the nonlinearities,
// updates c and computes h, vectorised with ATen's Vectorized<T> (the exp of
// torch.sigmoid). With gates="recurrent" each step also makes one matrix
// product: through oneDNN where the caller hands over a packed weight (large
// problems), else in the blocked products below, fused with the step (each
// thread owns some hidden units for the whole step). With gates="input"
// nothing couples the rows, so each thread takes whole rows through time.
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

// Column offsets of the gates in a row of width G * n, from the cell table.
struct Gates {
  int64_t i, f, g, o;
};

Gates gate_columns(const std::vector<int64_t>& blocks, int64_t n, int64_t n_gates) {
  TORCH_CHECK(blocks.size() == 4, "expected the blocks of (i, f, g, o), got ", blocks.size());
  for (auto b : blocks)
    TORCH_CHECK(b >= -1 && b < n_gates, "gate block ", b, " outside 0..", n_gates - 1);
  TORCH_CHECK(blocks[0] >= 0 && blocks[2] >= 0 && blocks[3] >= 0, "i, g and o are required");
  return {blocks[0] * n, blocks[1] < 0 ? -1 : blocks[1] * n, blocks[2] * n, blocks[3] * n};
}

// Rows per task: about 2k elements of a hidden state per task.
inline int64_t grain(int64_t n) { return std::max<int64_t>(1, 2048 / std::max<int64_t>(1, n)); }

// One step forward of one row. a: pre-activations; cp: c_(t-1) (at the first
// step the initial state, or null for zeros); s: s_ts or null; b: the state bias or null. Writes the activated
// gates, c, tanh(c + b) and h = o * tanh(c + b).
template <typename T, bool HasForget>
void forward_row(const T* a, const T* cp, const T* s, const T* b, T* act, T* c, T* tc, T* h,
                 const Gates& q, int64_t j_begin, int64_t j_end) {
  using V = Vectorized<T>;
  const int64_t gi = q.i, gf = q.f, gg = q.g, go = q.o;
  for (int64_t j = j_begin; j < j_end; j += V::size()) {
    const Lanes<T> l{std::min<int64_t>(V::size(), j_end - j)};
    const V i = sigmoid(l.load(a + gi + j));
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
    l.store(i, act + gi + j);
    l.store(g, act + gg + j);
    l.store(o, act + go + j);
    l.store(cv, c + j);
    l.store(t, tc + j);
    l.store(o * t, h + j);
  }
}

// One step back through time of one row. dho: dL/dh_t from above; dhr:
// W_h^T dA_(t+1) or null; dcb: in, f_(t+1) * dc_(t+1) (where the row ends at
// t, dL/dc_last as the caller set it, or zero); out, f_t * dc_t. Writes d_pre
// (pre-activations), d_su = dc * i * g (for s) and d_z = d tanh(c + b) / d(c + b) * dh * o.
template <typename T, bool HasForget>
void backward_row(const T* dho, const T* dhr, const T* act, const T* cp, const T* tc,
                  const T* s, T* dcb, T* dr, T* dsu, T* dz, const Gates& q, int64_t j_begin,
                  int64_t j_end) {
  using V = Vectorized<T>;
  const V one(T(1)), zero(T(0));
  const int64_t gi = q.i, gf = q.f, gg = q.g, go = q.o;
  for (int64_t j = j_begin; j < j_end; j += V::size()) {
    const Lanes<T> l{std::min<int64_t>(V::size(), j_end - j)};
    const V dh = dhr ? l.load(dho + j) + l.load(dhr + j) : l.load(dho + j);
    const V i = l.load(act + gi + j), g = l.load(act + gg + j), o = l.load(act + go + j);
    const V t = l.load(tc + j);
    const V z = dh * o * (one - t * t);
    const V dc = z + l.load(dcb + j);
    const V du = s ? dc * l.load(s + j) : dc;
    l.store(du * g * i * (one - i), dr + gi + j);
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

// The recurrent products without a library call, for the steps whose products
// are too small to repay one: each task owns a block of V::size() hidden units,
// computes the pre-activations of all gates of those units for the running rows
// (register-blocked: RB rows by G gates of accumulators), and then runs the
// step's elementwise pass on them, so a step needs no other synchronisation.

// W_h (G*n, n) rearranged as [unit block][k][gate][lane], zero past unit n.
template <typename T>
std::vector<T> block_weight(const torch::Tensor& weight_h, int64_t gates, int64_t n) {
  constexpr int64_t VS = Vectorized<T>::size();
  const int64_t blocks = (n + VS - 1) / VS;
  std::vector<T> wb(blocks * n * gates * VS, T(0));
  auto w = weight_h.contiguous();
  const T* w0 = w.data_ptr<T>();
  for (int64_t jb = 0; jb < blocks; ++jb)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t q = 0; q < gates; ++q)
        for (int64_t v = 0; v < VS && jb * VS + v < n; ++v)
          wb[((jb * n + k) * gates + q) * VS + v] = w0[(q * n + jb * VS + v) * n + k];
  return wb;
}

// a[r, q*n + j0 + v] = p[r, q*n + j0 + v] + sum_k h[r, k] * W_h[q*n + j0 + v, k] for
// RB rows from r0 and the lanes v < m of the unit block jb (j0 = jb * VS).
template <typename T, int64_t G, int64_t RB>
inline void gate_block(const T* p, const T* h, const T* wb, T* a, int64_t r0, int64_t n,
                       int64_t jb, int64_t m) {
  using V = Vectorized<T>;
  constexpr int64_t VS = V::size();
  const Lanes<T> l{m};
  const int64_t width = G * n, j0 = jb * VS;
  V acc[RB][G];
  for (int64_t r = 0; r < RB; ++r)
    for (int64_t q = 0; q < G; ++q) acc[r][q] = l.load(p + (r0 + r) * width + q * n + j0);
  const T* w = wb + jb * n * G * VS;
  for (int64_t k = 0; k < n; ++k, w += G * VS) {
    V wq[G];
    for (int64_t q = 0; q < G; ++q) wq[q] = V::loadu(w + q * VS);
    for (int64_t r = 0; r < RB; ++r) {
      const V hb(h[(r0 + r) * n + k]);
      for (int64_t q = 0; q < G; ++q) acc[r][q] = at::vec::fmadd(hb, wq[q], acc[r][q]);
    }
  }
  for (int64_t r = 0; r < RB; ++r)
    for (int64_t q = 0; q < G; ++q) l.store(acc[r][q], a + (r0 + r) * width + q * n + j0);
}

// d[r, j0 + v] = sum_c d_pre[r, c] * W_h[c, j0 + v] for RB rows from r0.
template <typename T, int64_t RB>
inline void unit_block(const T* d_pre, const T* w, T* d, int64_t r0, int64_t width, int64_t n,
                       int64_t j0, int64_t m) {
  using V = Vectorized<T>;
  const Lanes<T> l{m};
  V acc[RB];
  for (int64_t r = 0; r < RB; ++r) acc[r] = V(T(0));
  for (int64_t c = 0; c < width; ++c) {
    const V wc = l.load(w + c * n + j0);
    for (int64_t r = 0; r < RB; ++r)
      acc[r] = at::vec::fmadd(V(d_pre[(r0 + r) * width + c]), wc, acc[r]);
  }
  for (int64_t r = 0; r < RB; ++r) l.store(acc[r], d + (r0 + r) * n + j0);
}

// Rows per register block: as many as the vector registers allow.
template <typename T>
constexpr int64_t row_block() { return Vectorized<T>::size() * sizeof(T) >= 64 ? 4 : 2; }

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

// The first packed row of every step, and one past the last row.
std::vector<int64_t> step_offsets(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> offsets(sizes.size() + 1, 0);
  for (size_t t = 0; t < sizes.size(); ++t) offsets[t + 1] = offsets[t] + sizes[t];
  return offsets;
}

// Each sequence's length, from the running sequences per step.
std::vector<int64_t> row_lengths(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> lengths(sizes.empty() ? 0 : sizes[0], 0);
  for (int64_t k : sizes)
    for (int64_t r = 0; r < k; ++r) ++lengths[r];
  return lengths;
}

template <typename T>
const T* ptr_or_null(const torch::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace

// Returns {h, c, tanh(c + b), activated gates}, each (n_tokens, .), packed:
// step t owns sizes[t] rows right after those of step t - 1.
// weight_h: (G*N, N), or none for gates="input"; packed: weight_h packed for
// oneDNN, or none for the blocked products above; scale_rows: s_ts per step,
// (T, N), or none.
std::vector<torch::Tensor> cell_state_forward(torch::Tensor proj,
                                              c10::optional<torch::Tensor> weight_h,
                                              c10::optional<torch::Tensor> packed,
                                              c10::optional<torch::Tensor> scale_rows,
                                              c10::optional<torch::Tensor> state_bias,
                                              c10::optional<torch::Tensor> c_init,
                                              std::vector<int64_t> sizes,
                                              std::vector<int64_t> gate_blocks) {
  proj = proj.contiguous();
  const int64_t tokens = proj.size(0), width = proj.size(1);
  const int64_t n_gates = std::count_if(gate_blocks.begin(), gate_blocks.end(),
                                        [](int64_t b) { return b >= 0; });
  TORCH_CHECK(n_gates > 0 && width % n_gates == 0, "projection width ", width,
              " is not a multiple of the ", n_gates, " gates");
  const int64_t n = width / n_gates;
  const Gates q = gate_columns(gate_blocks, n, n_gates);
  const bool has_forget = q.f >= 0;
  auto hs = torch::empty({tokens, n}, proj.options());
  auto cs = torch::empty_like(hs), tcs = torch::empty_like(hs), acts = torch::empty_like(proj);
  torch::Tensor scale, bias, c_start;
  if (scale_rows) scale = scale_rows->contiguous();
  if (state_bias) bias = state_bias->contiguous();
  if (c_init) c_start = c_init->contiguous();
  const auto off = step_offsets(sizes);
  AT_DISPATCH_FLOATING_TYPES(proj.scalar_type(), "cell_state_forward", [&] {
    using T = scalar_t;
    auto row = has_forget ? forward_row<T, true> : forward_row<T, false>;
    const T *s0 = ptr_or_null<T>(scale), *b = ptr_or_null<T>(bias);
    const T* ci0 = ptr_or_null<T>(c_start);
    T *c0 = cs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>(), *h0 = hs.data_ptr<T>();
    T* act0 = acts.data_ptr<T>();
    auto step_row = [&](int64_t t, int64_t r, const T* a, int64_t j_begin, int64_t j_end) {
      const int64_t i = off[t] + r;
      const T* cp = t > 0 ? c0 + (off[t - 1] + r) * n : (ci0 ? ci0 + r * n : nullptr);
      row(a, cp, s0 ? s0 + t * n : nullptr, b, act0 + i * width, c0 + i * n, tc0 + i * n,
          h0 + i * n, q, j_begin, j_end);
    };
    if (!weight_h) {  // every sequence on its own through time
      const auto lengths = row_lengths(sizes);
      const T* a0 = proj.data_ptr<T>();
      at::parallel_for(0, (int64_t)lengths.size(), 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          for (int64_t t = 0; t < lengths[r]; ++t)
            step_row(t, r, a0 + (off[t] + r) * width, 0, n);
      });
      return;
    }
    if (packed) {  // a library product per step, then the rows in parallel
      for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
        const int64_t k = sizes[t];
        torch::Tensor a = proj.narrow(0, off[t], k);
        if (t > 0) a = onednn_linear(hs.narrow(0, off[t - 1], k), *packed, &a).contiguous();
        const T* ap = a.data_ptr<T>();
        at::parallel_for(0, k, grain(n), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) step_row(t, r, ap + r * width, 0, n);
        });
      }
      return;
    }
    // blocked products: each task owns blocks of hidden units for the whole step
    constexpr int64_t VS = Vectorized<T>::size(), RB = row_block<T>();
    const int64_t blocks = (n + VS - 1) / VS;
    const auto wb = block_weight<T>(*weight_h, n_gates, n);
    std::vector<T> scratch(sizes.empty() ? 0 : sizes[0] * width);
    const T* p0 = proj.data_ptr<T>();
    TORCH_CHECK(n_gates == 3 || n_gates == 4, "the blocked products take 3 or 4 gates");
    const auto rows = n_gates == 4 ? gate_block<T, 4, RB> : gate_block<T, 3, RB>;
    const auto row1 = n_gates == 4 ? gate_block<T, 4, 1> : gate_block<T, 3, 1>;
    for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
      const int64_t k = sizes[t];
      const T* p = p0 + off[t] * width;
      const T* h_prev = t > 0 ? h0 + off[t - 1] * n : nullptr;
      T* a = t > 0 ? scratch.data() : nullptr;
      at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t jb = begin; jb < end; ++jb) {
          const int64_t j0 = jb * VS, m = std::min(VS, n - j0);
          if (t > 0) {
            int64_t r = 0;
            for (; r + RB <= k; r += RB) rows(p, h_prev, wb.data(), a, r, n, jb, m);
            for (; r < k; ++r) row1(p, h_prev, wb.data(), a, r, n, jb, m);
          }
          for (int64_t r = 0; r < k; ++r) step_row(t, r, (t > 0 ? a : p) + r * width, j0, j0 + m);
        }
      });
    }
  });
  return {hs, cs, tcs, acts};
}

// Returns {d pre-activations (n_tokens, G*N), dc * i * g (n_tokens, N),
// d (c + b) (n_tokens, N), d c_init (sizes[0], N)}, packed. packed_t: weight_h^T
// packed for oneDNN, or none for the blocked products above. c_init: the cell
// state before the first step, one row per sequence (packed order), or none
// for zeros; d_c_last: dL/dc at each sequence's last step, (sizes[0], N), or none.
std::vector<torch::Tensor> cell_state_backward(torch::Tensor d_hs, torch::Tensor acts,
                                               torch::Tensor cs, torch::Tensor tcs,
                                               c10::optional<torch::Tensor> weight_h,
                                               c10::optional<torch::Tensor> packed_t,
                                               c10::optional<torch::Tensor> scale_rows,
                                               c10::optional<torch::Tensor> c_init,
                                               c10::optional<torch::Tensor> d_c_last,
                                               std::vector<int64_t> sizes,
                                               std::vector<int64_t> gate_blocks) {
  d_hs = d_hs.contiguous();
  const int64_t n = cs.size(1), width = acts.size(1);
  const Gates q = gate_columns(gate_blocks, n, width / n);
  const bool has_forget = q.f >= 0;
  auto d_pre = torch::empty_like(acts);
  auto d_su = torch::empty_like(cs), d_zs = torch::empty_like(cs);
  // f_(t+1) * dc_(t+1) per running row; a row's slot is first read at its last
  // step, where it holds dL/dc_last, and ends holding f_0 * dc_0 = dL/dc_init
  auto d_c_buf = d_c_last ? d_c_last->contiguous().clone()
                          : torch::zeros({sizes.empty() ? 0 : sizes[0], n}, cs.options());
  torch::Tensor w, scale, c_start;
  if (weight_h) w = weight_h->contiguous();
  if (scale_rows) scale = scale_rows->contiguous();
  if (c_init) c_start = c_init->contiguous();
  const int64_t last = (int64_t)sizes.size() - 1;
  const auto off = step_offsets(sizes);
  AT_DISPATCH_FLOATING_TYPES(cs.scalar_type(), "cell_state_backward", [&] {
    using T = scalar_t;
    auto row = has_forget ? backward_row<T, true> : backward_row<T, false>;
    const T *s0 = ptr_or_null<T>(scale), *dho0 = d_hs.data_ptr<T>();
    const T *act0 = acts.data_ptr<T>(), *c0 = cs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>();
    const T* ci0 = ptr_or_null<T>(c_start);
    T *dr0 = d_pre.data_ptr<T>(), *dsu0 = d_su.data_ptr<T>(), *dz0 = d_zs.data_ptr<T>();
    T* dcb0 = d_c_buf.data_ptr<T>();
    auto step_row = [&](int64_t t, int64_t r, const T* dhr, int64_t j_begin, int64_t j_end) {
      const int64_t i = off[t] + r;
      const T* cp = t > 0 ? c0 + (off[t - 1] + r) * n : (ci0 ? ci0 + r * n : nullptr);
      row(dho0 + i * n, dhr, act0 + i * width, cp, tc0 + i * n, s0 ? s0 + t * n : nullptr,
          dcb0 + r * n, dr0 + i * width, dsu0 + i * n, dz0 + i * n, q, j_begin, j_end);
    };
    if (!weight_h) {  // every sequence on its own, back through time
      const auto lengths = row_lengths(sizes);
      at::parallel_for(0, (int64_t)lengths.size(), 1, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          for (int64_t t = lengths[r] - 1; t >= 0; --t) step_row(t, r, nullptr, 0, n);
      });
      return;
    }
    if (packed_t) {  // a library product per step, then the rows in parallel
      for (int64_t t = last; t >= 0; --t) {
        const int64_t k = sizes[t];
        const int64_t k_next = t < last ? sizes[t + 1] : 0;
        torch::Tensor d_h_rec;
        if (k_next > 0)
          d_h_rec = onednn_linear(d_pre.narrow(0, off[t + 1], k_next), *packed_t, nullptr)
                        .contiguous();
        const T* dhr0 = d_h_rec.defined() ? d_h_rec.data_ptr<T>() : nullptr;
        at::parallel_for(0, k, grain(n), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r)
            step_row(t, r, r < k_next ? dhr0 + r * n : nullptr, 0, n);
        });
      }
      return;
    }
    // blocked products: each task owns blocks of hidden units for the whole step
    constexpr int64_t VS = Vectorized<T>::size(), RB = row_block<T>();
    const int64_t blocks = (n + VS - 1) / VS;
    const T* w0 = w.data_ptr<T>();
    std::vector<T> scratch(sizes.empty() ? 0 : sizes[0] * n);
    T* d_h_rec = scratch.data();
    for (int64_t t = last; t >= 0; --t) {
      const int64_t k = sizes[t];
      const int64_t k_next = t < last ? sizes[t + 1] : 0;
      const T* d_next = dr0 + (t < last ? off[t + 1] : 0) * width;
      at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t jb = begin; jb < end; ++jb) {
          const int64_t j0 = jb * VS, m = std::min(VS, n - j0);
          int64_t r = 0;
          for (; r + RB <= k_next; r += RB) unit_block<T, RB>(d_next, w0, d_h_rec, r, width, n, j0, m);
          for (; r < k_next; ++r) unit_block<T, 1>(d_next, w0, d_h_rec, r, width, n, j0, m);
          for (r = 0; r < k; ++r)
            step_row(t, r, r < k_next ? d_h_rec + r * n : nullptr, j0, j0 + m);
        }
      });
    }
  });
  return {d_pre, d_su, d_zs, d_c_buf};
}

// The second-order LSTM (solstm, S cells; spacy_elstm/pytorch/cells.py,
// _second_order_step): S LSTM steps from the same (h, c), mixed by the weights
// alpha that close each row of the projection. A row of proj is the S cells'
// pre-activations, S blocks of G * n laid out as the cell table says, then
// alpha (S). Its hidden width is small in the papers' settings (3m units for
// Dyck-2), so each row runs plain scalar loops, its recurrent product
// included, and the rows of a step run in parallel.

// Returns {h (tokens, n), c (tokens, n), the activated gates (tokens, S*G*n),
// each cell's c (tokens, S*n), tanh of each cell's c (tokens, S*n)}, packed.
std::vector<torch::Tensor> second_order_forward(torch::Tensor proj,
                                                c10::optional<torch::Tensor> weight_h,
                                                c10::optional<torch::Tensor> c_init,
                                                std::vector<int64_t> sizes,
                                                std::vector<int64_t> gate_blocks,
                                                int64_t n, int64_t cells) {
  proj = proj.contiguous();
  const int64_t tokens = proj.size(0), width = proj.size(1);
  const int64_t cell_width = (width - cells) / cells, gw = cells * cell_width;
  TORCH_CHECK(cells >= 1 && cell_width % n == 0 && gw + cells == width, "projection width ",
              width, " is not ", cells, " cells of whole gate blocks of ", n, " plus ", cells);
  const Gates q = gate_columns(gate_blocks, n, cell_width / n);
  TORCH_CHECK(q.f >= 0, "the second-order cell mixes LSTM cells, which have a forget gate");
  auto hs = torch::empty({tokens, n}, proj.options());
  auto cs = torch::empty_like(hs), acts = torch::empty({tokens, gw}, proj.options());
  auto ccs = torch::empty({tokens, cells * n}, proj.options()), tcs = torch::empty_like(ccs);
  torch::Tensor w, c_start;
  if (weight_h) w = weight_h->contiguous();
  if (c_init) c_start = c_init->contiguous();
  const auto off = step_offsets(sizes);
  AT_DISPATCH_FLOATING_TYPES(proj.scalar_type(), "second_order_forward", [&] {
    using T = scalar_t;
    const T *p0 = proj.data_ptr<T>(), *w0 = ptr_or_null<T>(w), *ci0 = ptr_or_null<T>(c_start);
    T *h0 = hs.data_ptr<T>(), *c0 = cs.data_ptr<T>(), *act0 = acts.data_ptr<T>();
    T *cc0 = ccs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>();
    for (int64_t t = 0; t < (int64_t)sizes.size(); ++t) {
      at::parallel_for(0, sizes[t], grain(gw), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t i = off[t] + r;
          const T* p = p0 + i * width;
          const T* hp = t > 0 ? h0 + (off[t - 1] + r) * n : nullptr;
          const T* cp = t > 0 ? c0 + (off[t - 1] + r) * n : (ci0 ? ci0 + r * n : nullptr);
          T* act = act0 + i * gw;
          for (int64_t k = 0; k < gw; ++k) {  // a = p + W_h h_(t-1)
            T sum = p[k];
            if (hp && w0)
              for (int64_t j = 0; j < n; ++j) sum += w0[k * n + j] * hp[j];
            act[k] = sum;
          }
          T *h = h0 + i * n, *c = c0 + i * n;
          std::fill(h, h + n, T(0));
          std::fill(c, c + n, T(0));
          for (int64_t s = 0; s < cells; ++s) {
            T* a = act + s * cell_width;
            const T alpha = p[gw + s];
            T *cc = cc0 + i * cells * n + s * n, *tc = tc0 + i * cells * n + s * n;
            for (int64_t j = 0; j < n; ++j) {
              const T ig = T(1) / (T(1) + std::exp(-a[q.i + j]));
              const T fg = T(1) / (T(1) + std::exp(-a[q.f + j]));
              const T gg = std::tanh(a[q.g + j]);
              const T og = T(1) / (T(1) + std::exp(-a[q.o + j]));
              a[q.i + j] = ig, a[q.f + j] = fg, a[q.g + j] = gg, a[q.o + j] = og;
              cc[j] = (cp ? fg * cp[j] : T(0)) + ig * gg;
              tc[j] = std::tanh(cc[j]);
              h[j] += alpha * og * tc[j];
              c[j] += alpha * cc[j];
            }
          }
        }
      });
    }
  });
  return {hs, cs, acts, ccs, tcs};
}

// Returns {d proj (tokens, S*G*n + S): the pre-activations' gradients, then
// alpha's; d c_init (sizes[0], n)}. d_c_last: dL/dc at each sequence's last
// step, (sizes[0], n), or none; c_init as forward's.
std::vector<torch::Tensor> second_order_backward(torch::Tensor d_hs, torch::Tensor acts,
                                                 torch::Tensor cs, torch::Tensor ccs,
                                                 torch::Tensor tcs, torch::Tensor alphas,
                                                 c10::optional<torch::Tensor> weight_h,
                                                 c10::optional<torch::Tensor> c_init,
                                                 c10::optional<torch::Tensor> d_c_last,
                                                 std::vector<int64_t> sizes,
                                                 std::vector<int64_t> gate_blocks) {
  d_hs = d_hs.contiguous();
  alphas = alphas.contiguous();
  const int64_t n = cs.size(1), gw = acts.size(1), cells = alphas.size(1);
  const int64_t cell_width = gw / cells, width = gw + cells;
  const Gates q = gate_columns(gate_blocks, n, cell_width / n);
  auto d_proj = torch::empty({acts.size(0), width}, acts.options());
  // dL/dc_t carried back to step t, per running row (see cell_state_backward)
  auto d_c_buf = d_c_last ? d_c_last->contiguous().clone()
                          : torch::zeros({sizes.empty() ? 0 : sizes[0], n}, cs.options());
  torch::Tensor w, c_start;
  if (weight_h) w = weight_h->contiguous();
  if (c_init) c_start = c_init->contiguous();
  const int64_t last = (int64_t)sizes.size() - 1;
  const auto off = step_offsets(sizes);
  AT_DISPATCH_FLOATING_TYPES(cs.scalar_type(), "second_order_backward", [&] {
    using T = scalar_t;
    const T *dho0 = d_hs.data_ptr<T>(), *act0 = acts.data_ptr<T>(), *c0 = cs.data_ptr<T>();
    const T *cc0 = ccs.data_ptr<T>(), *tc0 = tcs.data_ptr<T>(), *al0 = alphas.data_ptr<T>();
    const T *w0 = ptr_or_null<T>(w), *ci0 = ptr_or_null<T>(c_start);
    T *dp0 = d_proj.data_ptr<T>(), *dcb0 = d_c_buf.data_ptr<T>();
    for (int64_t t = last; t >= 0; --t) {
      const int64_t k_next = t < last ? sizes[t + 1] : 0;
      at::parallel_for(0, sizes[t], grain(gw), [&](int64_t begin, int64_t end) {
        std::vector<T> dh(n), dc(n);
        for (int64_t r = begin; r < end; ++r) {
          const int64_t i = off[t] + r;
          const T* cp = t > 0 ? c0 + (off[t - 1] + r) * n : (ci0 ? ci0 + r * n : nullptr);
          const T* dho = dho0 + i * n;
          T* dcb = dcb0 + r * n;
          for (int64_t j = 0; j < n; ++j) dh[j] = dho[j];
          if (r < k_next && w0) {  // + W_h^T dA_(t+1)
            const T* dn = dp0 + (off[t + 1] + r) * width;
            for (int64_t k = 0; k < gw; ++k)
              for (int64_t j = 0; j < n; ++j) dh[j] += dn[k] * w0[k * n + j];
          }
          for (int64_t j = 0; j < n; ++j) dc[j] = dcb[j], dcb[j] = T(0);
          T* dp = dp0 + i * width;
          for (int64_t s = 0; s < cells; ++s) {
            const T* a = act0 + i * gw + s * cell_width;
            const T *cc = cc0 + i * cells * n + s * n, *tc = tc0 + i * cells * n + s * n;
            const T alpha = al0[i * cells + s];
            T* da = dp + s * cell_width;
            T d_alpha = T(0);
            for (int64_t j = 0; j < n; ++j) {
              const T ig = a[q.i + j], fg = a[q.f + j], gg = a[q.g + j], og = a[q.o + j];
              d_alpha += dh[j] * og * tc[j] + dc[j] * cc[j];
              const T dhs = alpha * dh[j];
              const T dcs = alpha * dc[j] + dhs * og * (T(1) - tc[j] * tc[j]);
              da[q.o + j] = dhs * tc[j] * og * (T(1) - og);
              da[q.i + j] = dcs * gg * ig * (T(1) - ig);
              da[q.g + j] = dcs * ig * (T(1) - gg * gg);
              da[q.f + j] = cp ? dcs * cp[j] * fg * (T(1) - fg) : T(0);
              dcb[j] += dcs * fg;
            }
            dp[gw + s] = d_alpha;
          }
        }
      });
    }
  });
  return {d_proj, d_c_buf};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &cell_state_forward, "cell-state recurrence, forward (CPU)");
  m.def("backward", &cell_state_backward, "cell-state recurrence, backward through time (CPU)");
  m.def("second_order_forward", &second_order_forward, "second-order LSTM, forward (CPU)");
  m.def("second_order_backward", &second_order_backward,
        "second-order LSTM, backward through time (CPU)");
}

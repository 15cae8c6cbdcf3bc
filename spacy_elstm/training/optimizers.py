"""The optimizers of Su & Kuo's experiments for thinc and spaCy, which thinc
lacks: AdaGrad (Duchi et al., 2011), theirs (Table 4), and Nesterov's
accelerated gradient (NAG; Sutskever et al., 2013), the convseq2seq's (Table 8,
after Gehring et al., 2017). Per parameter element, with gradient g:

AdaGrad:
    a <- a + g^2
    w <- w - learn_rate * g / (sqrt(a) + eps)

with the accumulator a starting at ``initial_accumulator_value``: 0.1 by default,
the default of TensorFlow's AdagradOptimizer (the paper does not give it).

NAG, in the form of torch.optim.SGD(nesterov=True) and TensorFlow's
MomentumOptimizer(use_nesterov=True):
    b <- momentum * b + g
    w <- w - learn_rate * (g + momentum * b)

with the velocity b starting at 0.

Both keep thinc's gradient clipping, which rescales each parameter's gradient
to at most ``grad_clip`` in L2 norm on its own (thinc hands an optimizer one
parameter at a time), not all gradients together by their global norm.
"""
from typing import Tuple

from thinc.api import Optimizer
from thinc.backends import get_array_ops
from thinc.optimizers import FloatOrSeq, KeyT
from thinc.types import FloatsXd
from spacy.util import registry

ADAGRAD = "spacy-elstm.Adagrad.v1"
NAG = "spacy-elstm.NAG.v1"


class _OwnStep(Optimizer):
    """thinc's Optimizer (its schedules, L2, gradient clipping, parameter
    averages) with ``_step`` in place of Adam's update: L2 and clipping before
    it, weight decay and the averages after it, as thinc's own update does."""

    def __call__(self, key: KeyT, weights: FloatsXd, gradient: FloatsXd, *,
                 lr_scale: float = 1.0) -> Tuple[FloatsXd, FloatsXd]:
        if len(gradient) < 1:
            return weights, gradient
        ops = get_array_ops(weights)
        self.nr_update[key] += 1
        if self.L2 != 0 and not self.L2_is_weight_decay:
            gradient += self.L2 * weights
        if self.grad_clip:
            gradient = ops.clip_gradient(gradient, self.grad_clip)
        lr = lr_scale * self.learn_rate
        self._step(ops, key, weights, gradient, lr)
        if self.L2 != 0 and self.L2_is_weight_decay:
            weights -= lr * self.L2 * weights
        if self.averages is not None:
            if key not in self.averages:
                self.averages[key] = ops.alloc(weights.shape, dtype="float32")
            ops.update_averages(self.averages[key], weights, self.nr_update[key])
        return weights, gradient

    def _step(self, ops, key: KeyT, weights: FloatsXd, gradient: FloatsXd, lr: float) -> None:
        """Update ``weights`` in place by ``gradient`` at step size ``lr``, and
        zero the gradient."""
        raise NotImplementedError


class Adagrad(_OwnStep):
    """The AdaGrad update (see the module docstring) in thinc's Optimizer. The
    accumulators live in ``mom2``, keyed by parameter like Adam's second moments."""

    def __init__(self, learn_rate: FloatOrSeq, *, initial_accumulator_value: float = 0.1,
                 eps: FloatOrSeq = 1e-7, L2: FloatOrSeq = 0.0, L2_is_weight_decay: bool = False,
                 grad_clip: FloatOrSeq = 0.0, use_averages: bool = False):
        if not (isinstance(initial_accumulator_value, (int, float))
                and not isinstance(initial_accumulator_value, bool)
                and initial_accumulator_value >= 0):
            raise ValueError(f"{ADAGRAD}: initial_accumulator_value must be a number >= 0, "
                             f"got {initial_accumulator_value!r}.")
        # beta1 = beta2 = 0: nothing of Adam is used
        super().__init__(learn_rate, L2=L2, beta1=0.0, beta2=0.0, eps=eps, grad_clip=grad_clip,
                         use_averages=use_averages, L2_is_weight_decay=L2_is_weight_decay)
        self.initial_accumulator_value = float(initial_accumulator_value)

    def _step(self, ops, key: KeyT, weights: FloatsXd, gradient: FloatsXd, lr: float) -> None:
        if key not in self.mom2:
            self.mom2[key] = ops.alloc(weights.shape, dtype=weights.dtype)
            self.mom2[key] += self.initial_accumulator_value
        accumulator = self.mom2[key]
        rows = self._rows_to_update(ops, weights, gradient)
        if rows is None:
            accumulator += gradient * gradient
            weights -= lr * gradient / (ops.xp.sqrt(accumulator) + self.eps)
            gradient *= 0
        else:
            g = gradient[rows]
            a = accumulator[rows] + g * g
            accumulator[rows] = a
            weights[rows] -= lr * g / (ops.xp.sqrt(a) + self.eps)
            gradient[rows] = 0

    def _rows_to_update(self, ops, weights: FloatsXd, gradient: FloatsXd):
        """The rows of a table whose gradient is not all zero, or None to update
        every element. A zero gradient leaves AdaGrad's accumulator and weight as
        they are, so updating only the other rows gives the same numbers; for an
        embedding table, of whose rows a batch touches few, it saves passes over
        the whole table. Not with L2, which moves every weight."""
        if weights.ndim < 2 or self.L2 != 0:
            return None
        rows = ops.xp.flatnonzero(gradient.reshape(len(gradient), -1).any(axis=1))
        return None if len(rows) == len(gradient) else rows


@registry.optimizers(ADAGRAD)
def create_adagrad(
    learn_rate: FloatOrSeq,
    *,
    initial_accumulator_value: float = 0.1,
    eps: FloatOrSeq = 1e-7,
    grad_clip: FloatOrSeq = 0.0,
    L2: FloatOrSeq = 0.0,
    L2_is_weight_decay: bool = False,
    use_averages: bool = False,
) -> Adagrad:
    """AdaGrad, as Su & Kuo train with it (Table 4: learning rate 0.5).

    learn_rate (float or schedule): The step size.
    initial_accumulator_value (float): Where each element's sum of squared gradients
        starts: 0.1, as TensorFlow's AdagradOptimizer.
    eps (float): Added to the square root of the accumulator (Keras's 1e-7; TensorFlow 1's
        AdagradOptimizer has none, which makes no difference once the accumulator starts > 0).
    grad_clip (float): Clip each parameter's gradient to this L2 norm first; 0 for none.
    L2 (float): L2 regularisation; 0 for none.
    L2_is_weight_decay (bool): Apply L2 as weight decay after the step, instead of adding
        L2 * w to the gradient.
    use_averages (bool): Keep moving averages of the parameters (spaCy evaluates and
        saves the averages when they are kept).
    """
    return Adagrad(learn_rate, initial_accumulator_value=initial_accumulator_value, eps=eps,
                   grad_clip=grad_clip, L2=L2, L2_is_weight_decay=L2_is_weight_decay,
                   use_averages=use_averages)


class NesterovSGD(_OwnStep):
    """The NAG update (see the module docstring) in thinc's Optimizer. The
    velocities live in ``mom1``, keyed by parameter like Adam's first moments.
    Unlike AdaGrad's, the update moves every row of a table each step (the
    velocity keeps moving rows the batch did not touch)."""

    def __init__(self, learn_rate: FloatOrSeq, *, momentum: float = 0.99,
                 L2: FloatOrSeq = 0.0, L2_is_weight_decay: bool = False,
                 grad_clip: FloatOrSeq = 0.0, use_averages: bool = False):
        if not (isinstance(momentum, (int, float)) and not isinstance(momentum, bool)
                and 0 <= momentum < 1):
            raise ValueError(f"{NAG}: momentum must be a number in [0, 1), got {momentum!r}.")
        super().__init__(learn_rate, L2=L2, beta1=0.0, beta2=0.0, grad_clip=grad_clip,
                         use_averages=use_averages, L2_is_weight_decay=L2_is_weight_decay)
        self.momentum = float(momentum)

    def _step(self, ops, key: KeyT, weights: FloatsXd, gradient: FloatsXd, lr: float) -> None:
        if key not in self.mom1:
            self.mom1[key] = ops.alloc(weights.shape, dtype=weights.dtype)
        velocity = self.mom1[key]
        velocity *= self.momentum
        velocity += gradient
        weights -= lr * (gradient + self.momentum * velocity)
        gradient *= 0


@registry.optimizers(NAG)
def create_nag(
    learn_rate: FloatOrSeq,
    *,
    momentum: float = 0.99,
    grad_clip: FloatOrSeq = 0.1,
    L2: FloatOrSeq = 0.0,
    L2_is_weight_decay: bool = False,
    use_averages: bool = False,
) -> NesterovSGD:
    """Stochastic gradient descent with Nesterov momentum (NAG), as Gehring et al.
    (2017) train their convolutional seq2seq: momentum 0.99, gradients clipped to
    norm 0.1, learning rate 0.25 (Su & Kuo, Table 8).

    learn_rate (float or schedule): The step size.
    momentum (float): The velocity's decay per step, in [0, 1).
    grad_clip (float): Clip each parameter's gradient to this L2 norm first (each on
        its own: thinc has no global norm); 0 for none.
    L2 (float): L2 regularisation; 0 for none.
    L2_is_weight_decay (bool): Apply L2 as weight decay after the step, instead of adding
        L2 * w to the gradient.
    use_averages (bool): Keep moving averages of the parameters (spaCy evaluates and
        saves the averages when they are kept).
    """
    return NesterovSGD(learn_rate, momentum=momentum, grad_clip=grad_clip, L2=L2,
                       L2_is_weight_decay=L2_is_weight_decay, use_averages=use_averages)

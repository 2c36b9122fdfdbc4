"""hopgemm for PyTorch: matrix products on Hopper GPUs through libhopgemm.

    hopgemm.matmul(a, b)       a[m, k] @ b[k, n]
    hopgemm.linear(x, w, b)    x[..., k] @ w[n, k]^T (+ b), as torch.nn.functional.linear

CUDA tensors of one device, fp16 or bf16 (all the same), on torch's current
stream. Both go through the custom operator torch.ops.hopgemm.mm (a fake
implementation for torch.compile, autograd through the same operator).
"""
import torch

from ._lib import HopgemmError, version  # noqa: F401  (public)
from . import _lib

__all__ = ["matmul", "linear", "version", "HopgemmError"]
__version__ = "0.1.0"

_DTYPES = {torch.float16: _lib.F16, torch.bfloat16: _lib.BF16}


def _operand(t, rows, cols):
    """How the library reads a rows x cols matrix held by tensor t: (op, ld,
    tensor). op N: rows of t are rows (unit column stride); op T: t is the
    transpose of a row-major cols x rows matrix (unit row stride). A tensor
    with neither unit stride is copied to a contiguous one first."""
    s0, s1 = t.stride()
    if s1 == 1 and (rows <= 1 or s0 >= max(cols, 1)):
        return _lib.OP_N, max(s0, cols, 1), t
    if s0 == 1 and (cols <= 1 or s1 >= max(rows, 1)):
        return _lib.OP_T, max(s1, rows, 1), t
    t = t.contiguous()
    return _lib.OP_N, max(cols, 1), t


def _check(a, b):
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError("hopgemm: both operands must be torch tensors")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"hopgemm: mm takes 2-D operands, got {a.dim()}-D and {b.dim()}-D")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"hopgemm: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied")
    if a.dtype != b.dtype or a.dtype not in _DTYPES:
        raise TypeError(f"hopgemm: operands must both be float16 or both bfloat16, got {a.dtype} and {b.dtype}")
    if a.device.type != "cuda" or b.device != a.device:
        raise ValueError(f"hopgemm: operands must be on one CUDA device, got {a.device} and {b.device}")


@torch.library.custom_op("hopgemm::mm", mutates_args=(), device_types="cuda")
def _mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _check(a, b)
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return c
    opa, lda, a = _operand(a, m, k)
    opb, ldb, b = _operand(b, k, n)
    dev = a.device.index if a.device.index is not None else torch.cuda.current_device()
    h = _lib.handle(dev)
    stream = torch.cuda.current_stream(dev).cuda_stream
    s = _lib.lib.hg_set_stream(h, stream)
    if s == _lib.SUCCESS:
        s = _lib.lib.hg_gemm(h, opa, opb, m, n, k, 1.0, a.data_ptr(), lda, b.data_ptr(), ldb, 0.0, c.data_ptr(),
                             max(n, 1), _DTYPES[a.dtype])
    if s == _lib.INVALID_VALUE:
        raise ValueError(f"hopgemm: {_lib.last_error(h)}")
    if s != _lib.SUCCESS:
        raise HopgemmError(s, _lib.last_error(h))
    return c


@_mm.register_fake
def _mm_fake(a, b):
    _check(a, b)
    return a.new_empty((a.shape[0], b.shape[1]))


def _mm_setup(ctx, inputs, output):
    a, b = inputs
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.hopgemm.mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.hopgemm.mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


_mm.register_autograd(_mm_backward, setup_context=_mm_setup)


def matmul(a, b):
    """a @ b for 2-D CUDA tensors a[m, k], b[k, n] of one dtype (fp16 or bf16),
    read as they lie in memory when one of each operand's strides is 1."""
    _check(a, b)
    return torch.ops.hopgemm.mm(a, b)


def linear(x, weight, bias=None):
    """x @ weight^T (+ bias), as torch.nn.functional.linear: x[..., k],
    weight[n, k], bias[n]. The product is hopgemm's; the bias is added by torch
    afterwards (a fused epilogue is not in the library yet)."""
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise ValueError("hopgemm: linear takes a tensor x of at least 1 dimension")
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise ValueError("hopgemm: linear's weight must be 2-D (n, k)")
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    _check(x2, weight.t())
    y = torch.ops.hopgemm.mm(x2, weight.t()).reshape(*lead, weight.shape[0])
    return y if bias is None else y + bias

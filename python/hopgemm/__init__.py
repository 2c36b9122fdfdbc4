"""hopgemm for PyTorch: matrix products on Hopper GPUs through libhopgemm.

    hopgemm.matmul(a, b)          a[m, k] @ b[k, n]
    hopgemm.bmm(a, b)             a[batch, m, k] @ b[batch, k, n], one strided-batched call
    hopgemm.linear(x, w, b, act)  act(x[..., k] @ w[n, k]^T + b), as torch.nn.functional.linear
                                  followed by relu or gelu(approximate="tanh"), fused

matmul and linear take compute="32f" (fp32 accumulation, the default) or
"16f" (fp16 accumulation allowed, fp16 only: faster, less precise; the C
library's HG_COMPUTE_16F); their gradients are computed the same way. They
take out_dtype=None (the output in the inputs' dtype, the default) or
torch.float32 (an fp32 output, not rounded to 16 bits; the C library's
HG_C_F32); the gradients of the inputs stay in the inputs' dtype.

CUDA tensors of one device, fp16 or bf16 (all the same), on torch's current
stream. They go through the custom operators torch.ops.hopgemm.mm,
torch.ops.hopgemm.bmm and torch.ops.hopgemm.linear (fake implementations for
torch.compile, autograd through the same operators).
"""
from typing import Optional

import torch

from ._lib import HopgemmError, version  # noqa: F401  (public)
from . import _lib

__all__ = ["matmul", "bmm", "linear", "version", "HopgemmError"]
__version__ = "0.17.3"

_DTYPES = {torch.float16: _lib.F16, torch.bfloat16: _lib.BF16}
_COMPUTES = {"32f": _lib.COMPUTE_32F, "16f": _lib.COMPUTE_16F}


def _compute_code(compute):
    """The library's code for a compute name; the operators check it against the dtype."""
    if compute not in _COMPUTES:
        raise ValueError(f"hopgemm: compute must be '32f' or '16f', got {compute!r}")
    return _COMPUTES[compute]


def _c_type_code(out_dtype):
    """The library's C type for an out_dtype: None (the inputs' dtype) or torch.float32."""
    if out_dtype is None:
        return _lib.C_AS_INPUTS
    if out_dtype is not torch.float32:
        raise ValueError(f"hopgemm: out_dtype must be None (the inputs' dtype) or torch.float32, got {out_dtype!r}")
    # A library older than 0.5.0 reads no c_type and would write 16-bit
    # elements into the fp32 output.
    if version() < (0, 5, 0):
        raise RuntimeError(f"hopgemm: out_dtype=torch.float32 needs libhopgemm 0.5.0 or later, "
                           f"loaded {'.'.join(map(str, version()))}")
    return _lib.C_F32


def _out_dtype(a, c_type):
    """The output's dtype for operands like a and a C type code."""
    return torch.float32 if c_type == _lib.C_F32 else a.dtype


def _operand(t, rows, cols):
    """How the library reads a rows x cols matrix held by tensor t: (op, ld,
    tensor). op N: rows of t are rows (unit column stride); op T: t is the
    transpose of a row-major cols x rows matrix (unit row stride). A tensor
    with neither unit stride is copied to a contiguous one first."""
    s0, s1 = t.stride()[-2:]  # a batch's matrices: the last two dimensions
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


def _launch(a, b, bias=None, act=_lib.ACT_NONE, compute=_lib.COMPUTE_32F, c_type=_lib.C_AS_INPUTS):
    """c[m, n] = act(a @ b + bias) by the library, on torch's current stream;
    hg_gemm without an epilogue, compute or C type, hg_matmul with one. C
    (fp32 with C_F32) has ldc = n elements of its own type."""
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=_out_dtype(a, c_type), device=a.device)
    if m == 0 or n == 0:
        return c
    opa, lda, a = _operand(a, m, k)
    opb, ldb, b = _operand(b, k, n)
    if bias is None and act == _lib.ACT_NONE and compute == _lib.COMPUTE_32F and c_type == _lib.C_AS_INPUTS:
        _run(a.device, lambda h: _lib.lib.hg_gemm(h, opa, opb, m, n, k, 1.0, a.data_ptr(), lda, b.data_ptr(), ldb,
                                                  0.0, c.data_ptr(), max(n, 1), _DTYPES[a.dtype]))
    else:
        d = _lib.MatmulDesc(opA=opa, opB=opb, m=m, n=n, k=k, A=a.data_ptr(), lda=lda, B=b.data_ptr(), ldb=ldb,
                            C=c.data_ptr(), ldc=max(n, 1), dtype=_DTYPES[a.dtype],
                            bias=None if bias is None else bias.data_ptr(), activation=act, compute=compute,
                            c_type=c_type)
        _run(a.device, lambda h: _lib.lib.hg_matmul(h, d))
    return c


def _run(device, call):
    """call(h), an hg_ function's status, on the library's handle for
    device with torch's current stream; the library's sentence raised as
    ValueError (bad input) or HopgemmError."""
    dev = device.index if device.index is not None else torch.cuda.current_device()
    h = _lib.handle(dev)
    s = _lib.lib.hg_set_stream(h, torch.cuda.current_stream(dev).cuda_stream)
    if s == _lib.SUCCESS:
        s = call(h)
    if s == _lib.INVALID_VALUE:
        raise ValueError(f"hopgemm: {_lib.last_error(h)}")
    if s != _lib.SUCCESS:
        raise HopgemmError(s, _lib.last_error(h))


def _check_compute(a, compute, c_type=_lib.C_AS_INPUTS):
    """The operators' compute and C type codes, against a's dtype."""
    if compute not in _COMPUTES.values():
        raise ValueError(f"hopgemm: compute code {compute} is not one of {sorted(_COMPUTES.values())}")
    if compute == _lib.COMPUTE_16F and a.dtype != torch.float16:
        raise TypeError(f"hopgemm: fp16 accumulation takes float16 operands, got {a.dtype}")
    if c_type not in (_lib.C_AS_INPUTS, _lib.C_F32):
        raise ValueError(f"hopgemm: C type code {c_type} is not one of {[_lib.C_AS_INPUTS, _lib.C_F32]}")


@torch.library.custom_op("hopgemm::mm", mutates_args=(), device_types="cuda")
def _mm(a: torch.Tensor, b: torch.Tensor, compute: int = 0, c_type: int = 0) -> torch.Tensor:
    _check(a, b)
    _check_compute(a, compute, c_type)
    return _launch(a, b, compute=compute, c_type=c_type)


@_mm.register_fake
def _mm_fake(a, b, compute=0, c_type=0):
    _check(a, b)
    _check_compute(a, compute, c_type)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(a, c_type))


def _mm_setup(ctx, inputs, output):
    a, b = inputs[:2]
    ctx.compute = inputs[2] if len(inputs) > 2 else _lib.COMPUTE_32F
    ctx.dtype = a.dtype
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad = grad.to(ctx.dtype)  # an fp32 output's gradient: the operands' dtype, as the library takes it
    grad_a = torch.ops.hopgemm.mm(grad, b.t(), ctx.compute) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.hopgemm.mm(a.t(), grad, ctx.compute) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None, None


_mm.register_autograd(_mm_backward, setup_context=_mm_setup)


def matmul(a, b, compute="32f", out_dtype=None):
    """a @ b for 2-D CUDA tensors a[m, k], b[k, n] of one dtype (fp16 or bf16),
    read as they lie in memory when one of each operand's strides is 1.
    compute: "32f" (fp32 accumulation) or "16f" (fp16 accumulation allowed;
    float16 only). out_dtype: None (the output in a's dtype) or
    torch.float32 (fp32, not rounded to 16 bits)."""
    _check(a, b)
    return torch.ops.hopgemm.mm(a, b, _compute_code(compute), _c_type_code(out_dtype))


def _check_bmm(a, b):
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError("hopgemm: both operands must be torch tensors")
    if a.dim() != 3 or b.dim() != 3:
        raise ValueError(f"hopgemm: bmm takes 3-D operands, got {a.dim()}-D and {b.dim()}-D")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"hopgemm: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied as batches")
    _check(a[0] if a.shape[0] else a.new_empty(a.shape[1:]), b[0] if b.shape[0] else b.new_empty(b.shape[1:]))


def _batch_operand(t, rows, cols):
    """_operand for a batch: (op, ld, batch stride, tensor). A batch stride
    that cannot hold one matrix after another without a copy (negative) is
    made contiguous; 0 (an expanded tensor) is one matrix for every product."""
    if t.stride(0) < 0:
        t = t.contiguous()
    op, ld, u = _operand(t, rows, cols)
    return op, ld, u.stride(0), u


def _launch_bmm(a, b):
    batch, m, k = a.shape
    n = b.shape[2]
    c = torch.empty((batch, m, n), dtype=a.dtype, device=a.device)
    if batch == 0 or m == 0 or n == 0:
        return c
    opa, lda, sa, a = _batch_operand(a, m, k)
    opb, ldb, sb, b = _batch_operand(b, k, n)
    d = _lib.MatmulDesc(opA=opa, opB=opb, m=m, n=n, k=k, A=a.data_ptr(), lda=lda, B=b.data_ptr(), ldb=ldb,
                        C=c.data_ptr(), ldc=max(n, 1), dtype=_DTYPES[a.dtype], batch_count=batch,
                        stride_a=sa, stride_b=sb, stride_c=m * max(n, 1))
    _run(a.device, lambda h: _lib.lib.hg_matmul(h, d))
    return c


@torch.library.custom_op("hopgemm::bmm", mutates_args=(), device_types="cuda")
def _bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _check_bmm(a, b)
    return _launch_bmm(a, b)


@_bmm.register_fake
def _bmm_fake(a, b):
    _check_bmm(a, b)
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.hopgemm.bmm(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.hopgemm.bmm(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


_bmm.register_autograd(_bmm_backward, setup_context=_mm_setup)


def bmm(a, b):
    """a @ b for 3-D CUDA tensors a[batch, m, k], b[batch, k, n] of one dtype
    (fp16 or bf16), as torch.bmm: one hg_matmul over the batch (the family
    runs it in one launch when each product's matrices lie a multiple of 8
    elements apart, one after another; else the library's GENERIC kernel)."""
    _check_bmm(a, b)
    return torch.ops.hopgemm.bmm(a, b)


_ACTIVATIONS = {None: _lib.ACT_NONE, "relu": _lib.ACT_RELU, "gelu_tanh": _lib.ACT_GELU_TANH}


def _check_linear(x, weight, bias, act, compute, c_type):
    _check(x, weight.t())
    _check_compute(x, compute, c_type)
    if bias is not None:
        if not isinstance(bias, torch.Tensor) or bias.shape != (weight.shape[0],):
            raise ValueError(f"hopgemm: linear's bias must have shape ({weight.shape[0]},)")
        if bias.dtype != x.dtype or bias.device != x.device:
            raise TypeError(f"hopgemm: linear's bias must be {x.dtype} on {x.device}, got {bias.dtype} on {bias.device}")
    if act not in _ACTIVATIONS.values():
        raise ValueError(f"hopgemm: activation code {act} is not one of {sorted(_ACTIVATIONS.values())}")


@torch.library.custom_op("hopgemm::linear", mutates_args=(), device_types="cuda")
def _linear(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], act: int,
            compute: int = 0, c_type: int = 0) -> torch.Tensor:
    _check_linear(x, weight, bias, act, compute, c_type)
    return _launch(x, weight.t(), None if bias is None else bias.contiguous(), act, compute, c_type)


@_linear.register_fake
def _linear_fake(x, weight, bias, act, compute=0, c_type=0):
    _check_linear(x, weight, bias, act, compute, c_type)
    return x.new_empty((x.shape[0], weight.shape[0]), dtype=_out_dtype(x, c_type))


def _linear_setup(ctx, inputs, output):
    x, weight, bias, act = inputs[:4]
    ctx.act = act
    ctx.compute = inputs[4] if len(inputs) > 4 else _lib.COMPUTE_32F
    ctx.c_type = inputs[5] if len(inputs) > 5 else _lib.C_AS_INPUTS
    ctx.has_bias = bias is not None
    # ReLU's gradient needs the output; GELU's the input to it, computed again in backward.
    ctx.save_for_backward(x, weight, bias, output if act == _lib.ACT_RELU else None)


def _linear_backward(ctx, grad):
    x, weight, bias, y = ctx.saved_tensors
    # The activation's gradient in the output's dtype (fp32 with C_F32, the
    # product recomputed in it); the products' in the operands'.
    if ctx.act == _lib.ACT_RELU:
        grad = torch.ops.aten.threshold_backward(grad, y, 0)
    elif ctx.act == _lib.ACT_GELU_TANH:
        pre = torch.ops.hopgemm.linear(x, weight, bias, _lib.ACT_NONE, ctx.compute, ctx.c_type)
        grad = torch.ops.aten.gelu_backward(grad, pre, approximate="tanh")
    grad_b = grad.sum(0).to(x.dtype) if ctx.has_bias and ctx.needs_input_grad[2] else None
    grad = grad.to(x.dtype)
    grad_x = torch.ops.hopgemm.mm(grad, weight, ctx.compute) if ctx.needs_input_grad[0] else None
    grad_w = torch.ops.hopgemm.mm(grad.t(), x, ctx.compute) if ctx.needs_input_grad[1] else None
    return grad_x, grad_w, grad_b, None, None, None


_linear.register_autograd(_linear_backward, setup_context=_linear_setup)


def linear(x, weight, bias=None, activation=None, compute="32f", out_dtype=None):
    """act(x @ weight^T + bias), as torch.nn.functional.linear followed by the
    activation: x[..., k], weight[n, k], bias[n] (x's dtype) or None;
    activation None, "relu" or "gelu_tanh" (torch.nn.functional.gelu with
    approximate="tanh"). Bias and activation are fused into the product's
    epilogue (hg_matmul); autograd gives the gradients of all three.
    compute: "32f" (fp32 accumulation) or "16f" (fp16 accumulation allowed;
    float16 only), for the product and its gradients. out_dtype: None (the
    output in x's dtype) or torch.float32 (fp32, not rounded to 16 bits; the
    bias stays in x's dtype)."""
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise ValueError("hopgemm: linear takes a tensor x of at least 1 dimension")
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise ValueError("hopgemm: linear's weight must be 2-D (n, k)")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"hopgemm: activation must be None, 'relu' or 'gelu_tanh', got {activation!r}")
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    y = torch.ops.hopgemm.linear(x2, weight, bias, _ACTIVATIONS[activation], _compute_code(compute),
                                 _c_type_code(out_dtype))
    return y.reshape(*lead, weight.shape[0])

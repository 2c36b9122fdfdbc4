"""hopgemm's Python package against torch and a float64 reference. Needs a
Hopper GPU; every test is skipped, with the reason, where there is none."""
import threading

import pytest

torch = pytest.importorskip("torch")
import hopgemm  # noqa: E402

HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability(0) == (9, 0)
needs_gpu = pytest.mark.skipif(not HOPPER, reason="needs a Hopper (sm_90) GPU")
DTYPES = [torch.float16, torch.bfloat16]


def test_version():
    import re

    header = open(__file__.rsplit("/python/", 1)[0] + "/include/hopgemm.h").read()
    want = tuple(int(re.search(rf"#define HG_VERSION_{p} (\d+)", header).group(1)) for p in ("MAJOR", "MINOR", "PATCH"))
    assert hopgemm.version() == want
    assert hopgemm.__version__ == ".".join(map(str, want))


def rel_err(x, ref):
    """Largest error over the reference's scale: max |x - ref| / max |ref|."""
    return ((x.double() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def ulp(dtype):
    return 2.0**-10 if dtype == torch.float16 else 2.0**-7


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["TN", "TT", "NN", "NT"])
def test_matmul_layouts(dtype, layout):
    """Every layout read from the strides: a row-major tensor or a
    transposed view of one, for each operand."""
    m, n, k = 300, 260, 520
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=dtype, generator=g)
    # Layout letters are the GEMM literature's (DESIGN.md): A then B, T = row-major here.
    a_in = a if layout[0] == "T" else a.t().contiguous().t()
    b_in = b.t().contiguous().t() if layout[1] == "N" else b
    assert a_in.stride(1 if layout[0] == "T" else 0) == 1
    c = hopgemm.matmul(a_in, b_in)
    ref = a.double() @ b.double()
    assert c.dtype == dtype and c.shape == (m, n)
    assert rel_err(c, ref) < 2 * ulp(dtype)


@needs_gpu
@pytest.mark.parametrize("m", [1, 16, 128, 2048])
def test_llama3_8b_mlp_block(m):
    """The MLP block of Llama-3-8B (4096 -> 14336 -> 4096, SwiGLU), bf16,
    against torch and a float64 reference computed from the same bf16
    inputs: hopgemm's error is of torch's size."""
    d, f = 4096, 14336
    g = torch.Generator(device="cuda").manual_seed(m)
    x = torch.randn(m, d, device="cuda", dtype=torch.bfloat16, generator=g)
    wg, wu = (torch.randn(f, d, device="cuda", dtype=torch.bfloat16, generator=g) * d**-0.5 for _ in range(2))
    wd = torch.randn(d, f, device="cuda", dtype=torch.bfloat16, generator=g) * f**-0.5

    def block(lin):
        h = torch.nn.functional.silu(lin(x, wg)) * lin(x, wu)
        return lin(h, wd)

    ours = block(hopgemm.linear)
    theirs = block(torch.nn.functional.linear)
    xd, wgd, wud, wdd = (t.double() for t in (x, wg, wu, wd))
    ref = (torch.nn.functional.silu(xd @ wgd.t()) * (xd @ wud.t())) @ wdd.t()
    e_ours, e_torch = rel_err(ours, ref), rel_err(theirs, ref)
    assert ours.shape == (m, d) and torch.isfinite(ours).all()
    assert e_ours <= 2 * e_torch + 2 * ulp(torch.bfloat16), (e_ours, e_torch)


@needs_gpu
def test_linear_batched_and_bias():
    x = torch.randn(2, 3, 64, device="cuda", dtype=torch.float16)
    w = torch.randn(40, 64, device="cuda", dtype=torch.float16)
    bias = torch.randn(40, device="cuda", dtype=torch.float16)
    y = hopgemm.linear(x, w, bias)
    ref = x.double() @ w.double().t() + bias.double()
    assert y.shape == (2, 3, 40) and rel_err(y, ref) < 4 * ulp(torch.float16)


def gelu_tanh(v):
    return 0.5 * v * (1.0 + torch.tanh((2.0 / torch.pi) ** 0.5 * (v + 0.044715 * v**3)))


REF_ACTS = {None: lambda v: v, "relu": torch.relu, "gelu_tanh": gelu_tanh}


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", [None, "relu", "gelu_tanh"])
@pytest.mark.parametrize("with_bias", [False, True])
def test_linear_epilogue(dtype, activation, with_bias):
    """Bias and activation fused by the library, against float64 from the same inputs."""
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(3, 100, 192, device="cuda", dtype=dtype, generator=g)
    w = torch.randn(330, 192, device="cuda", dtype=dtype, generator=g) / 8
    bias = torch.randn(330, device="cuda", dtype=dtype, generator=g) if with_bias else None
    y = hopgemm.linear(x, w, bias, activation)
    pre = x.double() @ w.double().t() + (bias.double() if with_bias else 0.0)
    ref = REF_ACTS[activation](pre)
    assert y.shape == (3, 100, 330) and y.dtype == dtype
    # An absolute error against the pre-activation's scale (GELU and ReLU bring
    # elements near 0 whose neighbours in the product were not).
    assert ((y.double() - ref).abs().max() / pre.abs().max()).item() < 4 * ulp(dtype)


@needs_gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu_tanh"])
def test_linear_epilogue_autograd(activation):
    """Gradients of x, weight and bias through the fused operator, against
    torch's linear and activation in float64."""
    g = torch.Generator(device="cuda").manual_seed(11)
    x = torch.randn(64, 96, device="cuda", dtype=torch.float16, generator=g).requires_grad_()
    w = (torch.randn(80, 96, device="cuda", dtype=torch.float16, generator=g) / 8).requires_grad_()
    b = torch.randn(80, device="cuda", dtype=torch.float16, generator=g).requires_grad_()
    torch.library.opcheck(torch.ops.hopgemm.linear.default, (x, w, b, 2 if activation == "gelu_tanh" else 0))
    up = torch.randn(64, 80, device="cuda", dtype=torch.float64, generator=g)
    (hopgemm.linear(x, w, b, activation).double() * up).sum().backward()
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
    (REF_ACTS[activation](torch.nn.functional.linear(xd, wd, bd)) * up).sum().backward()
    for ours, ref in ((x.grad, xd.grad), (w.grad, wd.grad), (b.grad, bd.grad)):
        assert rel_err(ours, ref) < 8 * ulp(torch.float16)


@needs_gpu
def test_linear_bad_epilogue():
    x = torch.randn(4, 8, device="cuda", dtype=torch.float16)
    w = torch.randn(6, 8, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="activation"):
        hopgemm.linear(x, w, None, "gelu")
    with pytest.raises(ValueError, match="shape"):
        hopgemm.linear(x, w, torch.zeros(5, device="cuda", dtype=torch.float16))
    with pytest.raises(TypeError, match="bias"):
        hopgemm.linear(x, w, torch.zeros(6, device="cuda", dtype=torch.float32))


def rel_fro(x, ref):
    return ((x.double() - ref).norm() / ref.norm()).item()


@needs_gpu
def test_compute_16f():
    """compute="16f" reaches the library: fp16 accumulation's error, several
    times fp32's on the same inputs and within its bound, in matmul, in
    linear with a bias and through autograd; refused for bfloat16 and
    unknown names."""
    m, n, k = 2048, 2048, 4096
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    w = torch.randn(n, k, device="cuda", dtype=torch.float16, generator=g)
    ref = a.double() @ w.double().t()
    e32 = rel_fro(hopgemm.matmul(a, w.t()), ref)
    e16 = rel_fro(hopgemm.matmul(a, w.t(), compute="16f"), ref)
    assert e32 < 1e-3 and 2 * e32 < e16 < 2e-2, (e32, e16)
    bias = torch.randn(n, device="cuda", dtype=torch.float16, generator=g)
    y = hopgemm.linear(a, w, bias, "relu", compute="16f")
    assert rel_fro(y, torch.relu(ref + bias.double())) < 2e-2
    x = a[:64].clone().requires_grad_()
    hopgemm.linear(x, w, compute="16f").float().sum().backward()
    assert rel_fro(x.grad, torch.ones(64, n, device="cuda", dtype=torch.float64) @ w.double()) < 2e-2
    with pytest.raises(TypeError, match="float16"):
        hopgemm.matmul(a.bfloat16(), w.t().bfloat16(), compute="16f")
    with pytest.raises(ValueError, match="compute"):
        hopgemm.linear(a, w, compute="fp16")


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [260, 259])
def test_matmul_out_dtype_f32(dtype, n):
    """out_dtype=torch.float32: an fp32 C, not rounded to 16 bits, against
    float64 (n = 259: an ldc that is no multiple of 4 fp32 elements, which
    TMA cannot store, so another kernel writes it)."""
    m, k = 300, 520
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(n, k, device="cuda", dtype=dtype, generator=g).t()
    ref = a.double() @ b.double()
    c = hopgemm.matmul(a, b, out_dtype=torch.float32)
    assert c.dtype == torch.float32 and c.shape == (m, n)
    e32, e16 = rel_err(c, ref), rel_err(hopgemm.matmul(a, b), ref)
    # fp32 accumulation's error alone, well below the 16-bit output's rounding.
    assert e32 < 2.0**-16 and e32 < e16 / 8, (e32, e16)
    k0 = hopgemm.matmul(a[:, :0], b[:0], out_dtype=torch.float32)
    assert k0.dtype == torch.float32 and torch.equal(k0, torch.zeros(m, n, device="cuda"))


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", [None, "relu", "gelu_tanh"])
def test_linear_out_dtype_f32(dtype, activation):
    """An fp32 output with the fused bias (in the inputs' dtype) and
    activation, against float64; gradients through it in the inputs' dtype."""
    g = torch.Generator(device="cuda").manual_seed(13)
    x = torch.randn(3, 100, 192, device="cuda", dtype=dtype, generator=g)
    w = torch.randn(328, 192, device="cuda", dtype=dtype, generator=g) / 8
    bias = torch.randn(328, device="cuda", dtype=dtype, generator=g)
    y = hopgemm.linear(x, w, bias, activation, out_dtype=torch.float32)
    pre = x.double() @ w.double().t() + bias.double()
    ref = REF_ACTS[activation](pre)
    assert y.shape == (3, 100, 328) and y.dtype == torch.float32
    # GELU's tanh.approx (relative error 2^-10.987, half of it on the result)
    # is the largest error left once C is not rounded to 16 bits.
    tol = 2.0**-11 if activation == "gelu_tanh" else 2.0**-16
    assert ((y.double() - ref).abs().max() / pre.abs().max()).item() < tol

    xg = x[0, :64].clone().requires_grad_()
    wg, bg = w.clone().requires_grad_(), bias.clone().requires_grad_()
    act_code = {None: 0, "relu": 1, "gelu_tanh": 2}[activation]
    torch.library.opcheck(torch.ops.hopgemm.linear.default, (xg, wg, bg, act_code, 0, 1))
    up = torch.randn(64, 328, device="cuda", dtype=torch.float64, generator=g)
    out = hopgemm.linear(xg, wg, bg, activation, out_dtype=torch.float32)
    (out.double() * up).sum().backward()
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (xg, wg, bg))
    (REF_ACTS[activation](torch.nn.functional.linear(xd, wd, bd)) * up).sum().backward()
    for ours, want in ((xg.grad, xd.grad), (wg.grad, wd.grad), (bg.grad, bd.grad)):
        assert ours.dtype == dtype and rel_err(ours, want) < 8 * ulp(dtype)


@needs_gpu
def test_out_dtype_bad():
    """out_dtype takes None or torch.float32 only, with a sentence naming it."""
    a = torch.randn(16, 32, device="cuda", dtype=torch.float16)
    w = torch.randn(24, 32, device="cuda", dtype=torch.float16)
    for bad in (torch.float16, torch.bfloat16, torch.float64, "float32"):
        with pytest.raises(ValueError, match="out_dtype"):
            hopgemm.matmul(a, w.t(), out_dtype=bad)
        with pytest.raises(ValueError, match="out_dtype"):
            hopgemm.linear(a, w, None, "relu", out_dtype=bad)


@needs_gpu
def test_current_stream_and_threads():
    """The work runs on torch's current stream; each thread has its own handle."""
    a = torch.randn(1024, 512, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(512, 768, device="cuda", dtype=torch.bfloat16)
    ref = a.double() @ b.double()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        c = hopgemm.matmul(a, b)
    s.synchronize()
    assert rel_err(c, ref) < 2 * ulp(torch.bfloat16)
    out = {}

    def work(i):
        with torch.cuda.stream(torch.cuda.Stream()):
            out[i] = hopgemm.matmul(a, b)
            torch.cuda.current_stream().synchronize()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(torch.equal(out[i], out[0]) for i in range(4))
    assert rel_err(out[0], ref) < 2 * ulp(torch.bfloat16)


@needs_gpu
def test_opcheck_and_autograd():
    a = torch.randn(64, 96, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.randn(96, 80, device="cuda", dtype=torch.float16, requires_grad=True)
    torch.library.opcheck(torch.ops.hopgemm.mm.default, (a, b))
    c = hopgemm.matmul(a, b)
    c.float().sum().backward()
    ga = torch.ones(64, 80, device="cuda", dtype=torch.float64) @ b.double().t()
    gb = a.double().t() @ torch.ones(64, 80, device="cuda", dtype=torch.float64)
    assert rel_err(a.grad, ga) < 2 * ulp(torch.float16) and rel_err(b.grad, gb) < 2 * ulp(torch.float16)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["TN", "TT", "NT"])
def test_bmm(dtype, layout):
    """A batch through one hg_matmul: contiguous, transposed views, and a
    slice of a larger batch (strides with gaps), against float64."""
    batch, m, n, k = 6, 200, 136, 264
    g = torch.Generator(device="cuda").manual_seed(2)
    a = torch.randn(batch, m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(batch, k, n, device="cuda", dtype=dtype, generator=g)
    a_in = a if layout[0] == "T" else a.transpose(1, 2).contiguous().transpose(1, 2)
    b_in = b.transpose(1, 2).contiguous().transpose(1, 2) if layout[1] == "N" else b
    c = hopgemm.bmm(a_in, b_in)
    ref = a.double() @ b.double()
    assert c.dtype == dtype and c.shape == (batch, m, n)
    assert rel_err(c, ref) < 2 * ulp(dtype)
    wide = torch.randn(batch, m, k + 8, device="cuda", dtype=dtype, generator=g)
    c2 = hopgemm.bmm(wide[:, :, :k], b_in)
    assert rel_err(c2, wide[:, :, :k].double() @ b.double()) < 2 * ulp(dtype)


@needs_gpu
def test_bmm_autograd_shared_and_bad():
    a = torch.randn(3, 40, 56, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.randn(3, 56, 24, device="cuda", dtype=torch.float16, requires_grad=True)
    torch.library.opcheck(torch.ops.hopgemm.bmm.default, (a, b))
    hopgemm.bmm(a, b).float().sum().backward()
    ones = torch.ones(3, 40, 24, device="cuda", dtype=torch.float64)
    assert rel_err(a.grad, ones @ b.double().transpose(1, 2)) < 2 * ulp(torch.float16)
    assert rel_err(b.grad, a.double().transpose(1, 2) @ ones) < 2 * ulp(torch.float16)
    # One B for every product (an expanded tensor, batch stride 0).
    w = torch.randn(56, 24, device="cuda", dtype=torch.float16)
    c = hopgemm.bmm(a.detach(), w.expand(3, 56, 24))
    assert rel_err(c, a.detach().double() @ w.double()) < 2 * ulp(torch.float16)
    with pytest.raises(ValueError, match="3-D"):
        hopgemm.bmm(a[0], b[0])
    with pytest.raises(ValueError, match="cannot be multiplied"):
        hopgemm.bmm(a, b[:2])
    assert hopgemm.bmm(a[:0], b[:0]).shape == (0, 40, 24)


@needs_gpu
def test_torch_compile():
    x = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)

    @torch.compile(fullgraph=True)
    def f(x, w):
        return torch.relu(hopgemm.linear(x, w)) * 2

    y = f(x, w)
    ref = torch.relu(x.double() @ w.double().t()) * 2
    assert rel_err(y, ref) < 4 * ulp(torch.bfloat16)


@needs_gpu
def test_bad_input():
    a = torch.randn(8, 8, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="CUDA"):
        hopgemm.matmul(a.cpu(), a.cpu())
    with pytest.raises(TypeError, match="float16"):
        hopgemm.matmul(a, a.bfloat16())
    with pytest.raises(TypeError, match="float16"):
        hopgemm.matmul(a.float(), a.float())
    with pytest.raises(ValueError, match="cannot be multiplied"):
        hopgemm.matmul(a, torch.randn(9, 8, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError, match="2-D"):
        hopgemm.matmul(a[None], a)
    # Empty products are fine, as in torch.
    z = hopgemm.matmul(a[:0], a)
    assert z.shape == (0, 8)
    k0 = hopgemm.matmul(a[:, :0], a[:0])
    assert torch.equal(k0, torch.zeros(8, 8, device="cuda", dtype=torch.float16))

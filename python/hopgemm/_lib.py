"""The C library through ctypes: finding it, its functions, its statuses."""
import ctypes
import ctypes.util
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))

# hopgemm.h's enums (their values are pinned there).
STATUS_NAMES = {
    0: "HG_STATUS_SUCCESS",
    1: "HG_STATUS_INVALID_VALUE",
    2: "HG_STATUS_NOT_SUPPORTED",
    3: "HG_STATUS_NO_DEVICE",
    4: "HG_STATUS_ARCH_MISMATCH",
    5: "HG_STATUS_ALLOC_FAILED",
    6: "HG_STATUS_EXECUTION_FAILED",
    7: "HG_STATUS_INTERNAL_ERROR",
}
SUCCESS, INVALID_VALUE, NOT_SUPPORTED = 0, 1, 2
OP_N, OP_T = 0, 1
F16, BF16 = 0, 1
ACT_NONE, ACT_RELU, ACT_GELU_TANH = 0, 1, 2
COMPUTE_32F, COMPUTE_16F = 0, 1  # hg_compute
C_AS_INPUTS, C_F32 = 0, 1  # hg_c_type


class HopgemmError(RuntimeError):
    """A failing status from the library, with its sentence (hg_last_error)."""

    def __init__(self, status, sentence):
        self.status = STATUS_NAMES.get(status, "HG_STATUS_UNKNOWN")
        self.sentence = sentence
        super().__init__(f"{self.status}: {sentence}")


def _candidates():
    env = os.environ.get("HOPGEMM_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, "libhopgemm.so")  # shipped by pip install
    yield os.path.join(_HERE, "..", "..", "build", "libhopgemm.so")  # an editable install
    found = ctypes.util.find_library("hopgemm")  # an installed one (make install)
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError(
        "hopgemm: libhopgemm.so not found; set HOPGEMM_LIBRARY, run `make` in the repository "
        "(editable install) or reinstall the package. Tried: " + "; ".join(tried)
    )


lib = _load()
_i64, _vp = ctypes.c_int64, ctypes.c_void_p
lib.hg_create.argtypes = [ctypes.POINTER(_vp)]
lib.hg_create.restype = ctypes.c_int
lib.hg_destroy.argtypes = [_vp]
lib.hg_destroy.restype = None
lib.hg_set_stream.argtypes = [_vp, _vp]
lib.hg_set_stream.restype = ctypes.c_int
lib.hg_gemm.argtypes = [_vp, ctypes.c_int, ctypes.c_int, _i64, _i64, _i64, ctypes.c_float, _vp, _i64, _vp, _i64,
                        ctypes.c_float, _vp, _i64, ctypes.c_int]
lib.hg_gemm.restype = ctypes.c_int


class MatmulDesc(ctypes.Structure):
    """hg_matmul_desc, field for field (hopgemm.h); `size` set to its size."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("opA", ctypes.c_int),
        ("opB", ctypes.c_int),
        ("m", _i64),
        ("n", _i64),
        ("k", _i64),
        ("alpha", ctypes.c_float),
        ("beta", ctypes.c_float),
        ("A", _vp),
        ("lda", _i64),
        ("B", _vp),
        ("ldb", _i64),
        ("C", _vp),
        ("ldc", _i64),
        ("dtype", ctypes.c_int),
        ("bias", _vp),
        ("activation", ctypes.c_int),
        ("batch_count", _i64),
        ("stride_a", _i64),
        ("stride_b", _i64),
        ("stride_c", _i64),
        ("stride_bias", _i64),
        ("compute", ctypes.c_int),  # HG_COMPUTE_32F (0) unless set
        ("c_type", ctypes.c_int),  # HG_C_AS_INPUTS (0) unless set; since 0.5.0
    ]

    def __init__(self, **fields):
        fields.setdefault("batch_count", 1)
        super().__init__(size=ctypes.sizeof(MatmulDesc), alpha=1.0, **fields)


lib.hg_matmul.argtypes = [_vp, ctypes.POINTER(MatmulDesc)]
lib.hg_matmul.restype = ctypes.c_int
lib.hg_last_error.argtypes = [_vp]
lib.hg_last_error.restype = ctypes.c_char_p
lib.hg_get_version.argtypes = []
lib.hg_get_version.restype = ctypes.c_int


def version():
    """The loaded library's version, (major, minor, patch)."""
    v = lib.hg_get_version()
    return (v // 10000, v // 100 % 100, v % 100)


def last_error(h):
    return lib.hg_last_error(h).decode("utf-8", "replace")


class _Handles(threading.local):
    def __init__(self):
        self.by_device = {}


_handles = _Handles()


def handle(device_index):
    """This thread's handle for a device (a handle serves one host thread at
    a time, any number of streams). Made with the device current, so it binds
    the context torch uses there."""
    h = _handles.by_device.get(device_index)
    if h is None:
        import torch

        with torch.cuda.device(device_index):
            torch.cuda.current_stream(device_index)  # torch's context is current from here
            p = _vp()
            s = lib.hg_create(ctypes.byref(p))
            if s != SUCCESS:
                raise HopgemmError(s, last_error(None))
        h = p.value
        _handles.by_device[device_index] = h
    return h

"""Bounded work and safe files: oversized operations are refused (LimitError) before any
circuit is built, in the eager operators and while a function is traced; huge shift
amounts do not wrap; key files are written atomically with their final mode; huge layouts,
model files and plans are refused from their sizes.

No test here measures wall-clock time: a reproduction runs in a child process whose
address space and CPU time are limited (`resource.setrlimit`), so unbounded work or memory
kills the child (and fails the test) however loaded the machine is, and a refusal, which
burns next to no CPU, passes however slow the machine is."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import encint

# A child that waits for something without running (a deadlock) is stopped after this
# long: a guard against hanging the test run, far above what any load makes of the CPU
# seconds a child may use.
HANG_GUARD_S = 1800

# The child: its limits, then the body; the body's expected error is printed with its
# class, the child's peak resident memory (KiB) and its message (exit 0), anything else
# exits 1. The CPU-time limit counts from the end of the imports (what the child has used
# then is added to it).
_LIMITED = textwrap.dedent(
    """
    import resource, sys
    import encint
    resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + {cpu}
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    ck = encint.ClientKey.clear()
    try:
        {body}
    except encint.{error} as e:
        # The peak of this process's own memory (VmHWM); ru_maxrss would carry over the
        # parent's resident size from before the exec.
        with open("/proc/self/status") as status:
            peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
        print("{error}", type(e).__name__, peak, e)
        sys.exit(0)
    print("no error")
    sys.exit(1)
    """
)

GIB = 1 << 30


def _child(code, what):
    """Runs `code` in a child process; its output, after checking it exited normally."""
    env = dict(os.environ, MALLOC_ARENA_MAX="2")
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S, env=env
    )
    if r.returncode == -signal.SIGXCPU:
        pytest.fail(f"{what}: the child used up its CPU-time limit\n{r.stdout}{r.stderr}")
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r.stdout


def _refused(body, error="LimitError", memory=4 * GIB, cpu=30):
    """Runs `body` in a child limited to `memory` bytes of address space and `cpu` seconds
    of CPU time; checks that it raised `encint.<error>` (a subclass counts) and returns the
    printed line: the error's name, its class, the peak memory and its message."""
    body = textwrap.indent(textwrap.dedent(body), "    ").strip()
    code = _LIMITED.format(body=body, error=error, memory=memory, cpu=cpu)
    out = _child(code, body)
    assert out.startswith(error), out
    return out


def test_product_of_4096_digits_is_refused_before_building():
    _refused("ck.encrypt(1, 4096) * ck.encrypt(1, 4096)")


def test_division_by_a_huge_constant_is_refused_before_building():
    _refused("ck.encrypt(5, 8) // 2**4000")


def test_a_typed_value_of_4096_bits_is_refused_before_building():
    _refused('ck.encrypt(3, "u4096") * ck.encrypt(5, "u4096")')


def test_a_long_trace_stops_at_the_first_operation_past_a_limit():
    body = """
    def f(x):
        for _ in range(10**5):
            x = x + x
        return x
    encint.trace(f, ck.encrypt(3, 8))
    """
    out = _refused(body)
    assert "traced operation" in out


def test_trace_widths_and_nodes_are_checked_as_recorded(clear):
    x = clear.encrypt(3, 8)
    # Widths: each shift adds 1000 digits; the fifth would give 5008 digits.
    with pytest.raises(encint.LimitError, match=r"traced operation 4 \(shl\(1000\)\).* 5008 digits"):
        encint.trace(lambda a: _repeat(lambda v: v << 1000, a, 10), x)
    # Products: x * x doubles the width, the node estimate grows with its square.
    with pytest.raises(encint.LimitError, match="traced operation"):
        encint.trace(lambda a: _repeat(lambda v: v * v, a, 20), x)
    # Nodes: many independent sums of a wide value (every width small enough).
    wide = clear.encrypt(1, 3000)
    with pytest.raises(encint.LimitError, match="nodes"):
        encint.trace(lambda a: [a + i for i in range(1, 1000)], wide)
    # cost() records the same way.
    with pytest.raises(encint.LimitError):
        encint.cost(lambda a: _repeat(lambda v: v * v, a, 20), [8])
    # Within the limits the same programs give the right answer.
    out = encint.trace(lambda a: _repeat(lambda v: v * v, a, 3), x)
    assert clear.decrypt(out) == 3**8
    outs = encint.trace(lambda a: [a + i for i in range(1, 4)], x)
    assert [clear.decrypt(o) for o in outs] == [4, 5, 6]


def _repeat(f, v, times):
    for _ in range(times):
        v = f(v)
    return v


def test_estimates_do_not_refuse_what_fits(clear, rng):
    # Near the limits, operations that fit still run, against Python ints.
    a = rng.getrandbits(2000) - (1 << 1999)
    b = rng.getrandbits(2000)
    x, y = clear.encrypt(a, 2000), clear.encrypt(b, 2000)
    assert clear.decrypt(x + y) == a + b
    assert clear.decrypt(x << 2000) == a << 2000
    assert clear.decrypt(x >> 1000) == a >> 1000
    small = clear.encrypt(-77, 8)
    assert clear.decrypt(small // 2**60) == -77 // 2**60
    assert clear.decrypt(small * (2**62 - 1)) == -77 * (2**62 - 1)


def test_huge_shift_amounts_are_refused_at_once(clear):
    # In a child process: a wrapped size check would loop for ages with the GIL released
    # (and use up the CPU-time limit).
    for k in (2**64 - 1, 2**64 - 4, 2**63, encint.MAX_DIGITS - 3):
        _refused(f"ck.encrypt(3, 4) << {k}")
    body = """
    real = encint.ClientKey.generate()
    real.encrypt(3, 4) << (2**64 - 1)
    """
    _refused(body, cpu=120)  # key generation takes seconds of CPU on every core
    x = clear.encrypt(3, 4)
    with pytest.raises(ValueError):
        x << 2**64
    assert clear.decrypt(x << (encint.MAX_DIGITS - 4)) == 3 << (encint.MAX_DIGITS - 4)


# --- files -------------------------------------------------------------------------------


def test_overwrite_replaces_atomically_with_mode_0600(keys, tmp_path):
    ck, _ = keys
    path = tmp_path / "client.key"
    path.write_bytes(b"old")
    os.chmod(path, 0o666)
    ck.save(str(path), overwrite=True)
    assert (path.stat().st_mode & 0o777) == 0o600
    assert encint.ClientKey.load(str(path)).key_set == ck.key_set
    # A symlink at the destination is replaced, its target left alone.
    target = tmp_path / "target"
    target.write_bytes(b"keep me")
    link = tmp_path / "link.key"
    link.symlink_to(target)
    with pytest.raises(FileExistsError):
        ck.save(str(link))
    ck.save(str(link), overwrite=True)
    assert target.read_bytes() == b"keep me"
    assert not link.is_symlink()
    assert (link.stat().st_mode & 0o777) == 0o600
    # No temporary is left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client.key", "link.key", "target"]


def test_a_name_of_255_bytes_is_saved(keys, tmp_path):
    ck, _ = keys
    path = tmp_path / ("k" * 255)
    ck.save(str(path))
    assert encint.ClientKey.load(str(path)).key_set == ck.key_set
    ck.save(path, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["k" * 255]


def test_errors_name_the_path(keys, tmp_path):
    ck, _ = keys
    missing = tmp_path / "no-such-dir" / "client.key"
    with pytest.raises(OSError, match="no-such-dir"):
        ck.save(str(missing))
    with pytest.raises(OSError, match="no-such-dir"):
        encint.ClientKey.load(str(missing))


def test_a_failed_write_keeps_the_old_key(keys, tmp_path):
    ck, _ = keys
    path = tmp_path / "client.key"
    ck.save(str(path))
    before = path.read_bytes()
    other = tmp_path / "other.key"
    encint.ClientKey.generate().save(str(other))
    # A child process whose file size limit is smaller than a key: the write fails.
    code = textwrap.dedent(
        f"""
        import resource, signal, sys
        import encint
        k = encint.ClientKey.load({str(other)!r})
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        try:
            k.save({str(path)!r}, overwrite=True)
        except OSError as e:
            print("OSError", e)
            sys.exit(0)
        sys.exit(1)
        """
    )
    out = _child(code, "saving a key past the file size limit")
    assert "client.key" in out
    assert path.read_bytes() == before
    assert encint.ClientKey.load(str(path)).key_set == ck.key_set
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client.key", "other.key"]


# --- arrays of the typed family ----------------------------------------------------------


def test_an_array_too_large_to_encrypt_is_refused_before_allocating():
    # A million u8 values are 64 GB of ciphertexts: refused from the shape, in a child
    # whose address space is 4 GiB (the encryption used to run until it aborted).
    body = """
    import numpy as np
    real = encint.ClientKey.generate()
    real.encrypt(np.zeros(10**6, np.uint8), "u8")
    """
    out = _refused(body, cpu=120)
    assert "MAX_CIPHERTEXT_BYTES" in out


def test_array_memory_limit_from_the_shape(keys):
    np = pytest.importorskip("numpy")
    ck, _ = keys
    # Views of any size cost nothing until their elements are read: refused from the
    # shape (2**62 elements), for values and booleans alike.
    for view, ty in [
        (np.broadcast_to(np.uint8(0), (2**31, 2**31)), "u8"),
        (np.broadcast_to(np.bool_(True), (2**20, 2**20)), "bool"),
    ]:
        with pytest.raises(encint.LimitError, match="MAX_CIPHERTEXT_BYTES"):
            ck.encrypt(view, ty)
    # Just past the limit: 8-bit values in radix-4 blocks are 4 digits each, in
    # canonical form 8; a digit is 2049 words of 8 bytes.
    most = encint.MAX_CIPHERTEXT_BYTES // (4 * 2049 * 8)
    with pytest.raises(encint.LimitError):
        ck.encrypt(np.broadcast_to(np.uint8(1), (most + 1,)), "u8")
    with pytest.raises(encint.LimitError):
        ck.encrypt(np.broadcast_to(np.uint8(1), (most // 2 + 1,)), "u8", form="canonical")
    # Small arrays are unaffected.
    assert ck.encrypt(np.arange(3, dtype=np.uint8), "u8").decrypt(ck).tolist() == [0, 1, 2]


# --- reproductions: each in a child of 1 GiB of address space and limited CPU time --------

# The child of a computation that must succeed: its limits, then the body, which sets
# `result`; printed as JSON.
_COMPUTED = textwrap.dedent(
    """
    import json, resource
    import encint
    resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + {cpu}
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    {body}
    print(json.dumps(result))
    """
)


def _computed(body, memory=GIB, cpu=60):
    code = _COMPUTED.format(body=textwrap.dedent(body).strip(), memory=memory, cpu=cpu)
    return json.loads(_child(code, body))


@pytest.mark.parametrize("shape", [(10**9,), (10**7,), (10**6,), (2**32, 2**32)])
def test_a_sum_over_a_huge_array_layout_is_refused_from_its_shape(shape):
    # The layout is checked before one entry per value is allocated (a billion values,
    # or a shape whose size overflows, used to allocate until the process died).
    out = _refused(f'encint.compile(lambda x: x.sum(), ("u8", {shape})).cost()', memory=GIB)
    assert "LimitError" in out


@pytest.mark.parametrize("ty", ["u8", "i8", "u16", "i16", "i24", "i32"])
@pytest.mark.parametrize("handle", ["y + 0", "y << 0"])
def test_a_product_of_two_handles_of_one_value_is_its_square(ty, handle):
    # (y + 0) * (y + 0) once recursed without end and crashed the interpreter.
    bits, signed = int(ty[1:]), ty[0] == "i"
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = [lo, hi, 0, 1, 3, hi // 3, lo // 5]
    body = f"""
    f = encint.compile(lambda y: ({handle}) * ({handle}), "{ty}")
    result = [f.run_clear(v) for v in {values}]
    """
    got = _computed(body)

    def wrap(v):
        u = v % (1 << bits)
        return u - (1 << bits) if signed and u >= 1 << (bits - 1) else u

    assert got == [wrap(v * v) for v in values], (ty, handle)


def _dense_model(tmp_path):
    """A 64 -> 4096 dense layer with a ReLU up to 4095, each column's accumulator on its
    own range (weights of magnitude 11 to 17 with signs by row, a bias per column), then a
    4096 -> 1 layer whose weights are zero but one: about 1.2 MB of JSON."""
    weights = [[(11 + j % 7) * (-1 if (i + j) % 3 == 0 else 1) for j in range(4096)]
               for i in range(64)]
    model = {
        "format": "encint-mlp", "version": 1, "input_size": 64, "input_max": 3,
        "layers": [
            {"weights": weights, "bias": [j - 2048 for j in range(4096)],
             "relu": {"shift": 0, "max": 4095}},
            {"weights": [[int(i == 0)] for i in range(4096)], "bias": [0]},
        ],
    }
    path = tmp_path / "dense.json"
    path.write_text(json.dumps(model))
    assert 10**6 < path.stat().st_size < 2 * 10**6
    return path


def test_an_fv_plan_past_its_interpolation_limit_is_refused_at_once(tmp_path):
    # 4096 activation polynomials through thousands of points each used to take minutes
    # (252 s) before planning; the plan is refused before any is interpolated.
    path = _dense_model(tmp_path)
    out = _refused(f"encint.FvInference(model={str(path)!r}).plan()", memory=GIB)
    assert "layer 0" in out


def test_an_endless_model_file_is_refused_at_once():
    # Refused after reading at most the loader's limit (64 MiB), not when the memory runs
    # out (the reader used to grow until an allocation failed).
    for cls in ("Inference", "FvInference"):
        out = _refused(f'encint.{cls}(model="/dev/zero")', error="Error", memory=GIB)
        assert "/dev/zero" in out, out
        peak_kib = int(out.split()[2])
        assert peak_kib < 400 * 1024, out


def test_a_model_file_with_an_unknown_field_is_refused_naming_it(tmp_path):
    # `description` and `training` are the notes the training script writes; any other
    # top-level field is refused by name.
    model = {
        "format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
        "description": "two inputs", "training": {"seed": 1},
        "layers": [{"weights": [[1, -1], [2, 3]], "bias": [0, 1],
                    "relu": {"shift": 0, "max": 3}},
                   {"weights": [[1], [2]], "bias": [-1]}],
    }
    good = tmp_path / "good.json"
    good.write_text(json.dumps(model))
    image = [3, 1]
    got = _computed(f"result = encint.Inference(model={str(good)!r}).logits({image})")
    # By hand: h = min(max(x W + b, 0) >> 0, 3), then h W' + b'.
    h = [min(max(3 * 1 + 1 * 2 + 0, 0), 3), min(max(3 * -1 + 1 * 3 + 1, 0), 3)]
    assert got == [h[0] * 1 + h[1] * 2 - 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(model, layerz=[])))
    for cls in ("Inference", "FvInference"):
        out = _refused(f"encint.{cls}(model={str(bad)!r})", error="Error", memory=GIB)
        assert "layerz" in out, out

"""Machine profiles from Python: built-in and saved profiles as dicts, calibration on this
machine, and a server key planning for a GPU profile whose results are the plain integers'."""

import json

import pytest

import encint


def test_builtin_profiles_and_refusals(tmp_path):
    cpu = encint.machine_profile("cpu:16")
    assert (cpu["name"], cpu["lanes"], cpu["plan_threads"], cpu["gpu"]) == ("cpu:16", 16, 16, False)
    assert cpu["latency_ms"] == 0
    h100 = encint.machine_profile("h100")
    assert h100["gpu"] and h100["lanes"] == 1
    assert h100["latency_ms"] == pytest.approx(5.0)
    with pytest.raises(encint.InvalidInputError):
        encint.machine_profile("tpu")
    with pytest.raises(FileNotFoundError):
        encint.machine_profile(str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "encint-machine-profile", "version": 1, "lanes": -3}))
    with pytest.raises(encint.FormatError):
        encint.machine_profile(str(bad))


def test_calibrate_saves_a_profile_that_reads_back(tmp_path):
    path = tmp_path / "profile" / "machine.json"
    got = encint.calibrate(threads=1, repeats=1, levels=2, path=str(path))
    assert got["name"] == "measured:cpu:1" and got["lanes"] == 1 and got["saved"] == str(path)
    # A real bootstrap: milliseconds, not microseconds (nor seconds).
    assert 1.0 < got["narrow_ms"] < 5000.0
    assert got["round_ms"] > 0.1 and got["latency_ms"] >= 0.0
    back = encint.machine_profile(str(path))
    for k in ["name", "lanes", "plan_threads", "gpu"]:
        assert back[k] == got[k]
    assert back["round_ms"] == pytest.approx(got["round_ms"])
    notes = tmp_path / "notes.json"
    notes.write_text("{}")
    with pytest.raises(FileExistsError):
        encint.calibrate(threads=1, repeats=1, levels=1, path=str(notes))
    assert notes.read_text() == "{}"
    with pytest.raises(encint.InvalidInputError):
        encint.calibrate(threads=1, repeats=0, save=False)
    dry = encint.calibrate(threads=1, repeats=1, levels=1, save=False)
    assert dry["saved"] is None


def test_a_key_planned_for_a_gpu_computes_the_plain_values(keys):
    ck, sk = keys
    gpu = sk.planned_for("h100")
    assert sk.machine is None and gpu.machine == "h100"
    assert gpu.key_set == sk.key_set
    with pytest.raises(encint.InvalidInputError):
        sk.planned_for("cpu:0")
    encint.set_server_key(gpu)
    try:
        a, b = 0x8000_0000_0000_0001, 0x1234_5678_9ABC_DEF0
        x, y = encint.FheUint64.encrypt(a, ck), encint.FheUint64.encrypt(b, ck)
        mask = (1 << 64) - 1
        assert (x + y).decrypt(ck) == (a + b) & mask
        assert (x < y).decrypt(ck) == (a < b)
        assert (y >> encint.FheUint64.encrypt(13, ck)).decrypt(ck) == b >> 13
    finally:
        encint.set_server_key(sk)

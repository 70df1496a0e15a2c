"""The byte processor's links from Python: `Program.encrypt_inputs` writes the inputs with
their signature (every element's name and kind, in circuit order), `Program.run` refuses
inputs encrypted for another program before evaluating anything, and
`Program.decrypt_outputs` refuses another program's result; the same program gives the
clear run's result (`run_clear`, the reference)."""

import pytest

import encint

# Two programs whose inputs take the same number of nibbles (four: two bytes), with
# other names: bare nibbles of one would run on the other and be read as its inputs.
ADD = encint.Program("input x, y\nz = ADD x, y\noutput z\n")
SUB = encint.Program("input a[2]\nz = SUB a[0], a[1]\noutput z\n")
# Outputs of the same size as ADD's, named otherwise.
NEG = encint.Program("input x, y\nw = SUB y, x\noutput w\n")


@pytest.fixture(scope="module")
def processor():
    return encint.ProcessorKeys.generate()


def test_inputs_of_another_program_are_refused_before_evaluating(processor):
    ck, keys = processor
    assert ADD.inputs == ["x", "y"] and SUB.inputs == ["a[0]", "a[1]"]
    up = ADD.encrypt_inputs(ck, {"x": 200, "y": 100})
    with pytest.raises(encint.InvalidInputError, match=r"x: byte, y: byte.*a\[2\]: byte") as e:
        SUB.run(keys, up)
    assert isinstance(e.value, encint.Error)
    # The right program on the same uplink: the clear run's result.
    down = ADD.run(keys, up)
    assert ADD.decrypt_outputs(ck, down) == ADD.run_clear({"x": 200, "y": 100}) == {"z": 44}


def test_a_result_of_another_program_is_refused(processor):
    ck, keys = processor
    data = {"x": 3, "y": 10}
    down = NEG.run(keys, NEG.encrypt_inputs(ck, data))
    with pytest.raises(encint.InvalidInputError, match=r"outputs w: byte.*z: byte"):
        ADD.decrypt_outputs(ck, down)
    assert NEG.decrypt_outputs(ck, down) == NEG.run_clear(data) == {"w": 7}
    # An uplink is not a downlink, nor the other way round.
    up = NEG.encrypt_inputs(ck, data)
    with pytest.raises(encint.InvalidInputError, match="encrypted inputs"):
        NEG.decrypt_outputs(ck, up)
    with pytest.raises(encint.InvalidInputError, match="encrypted result"):
        NEG.run(keys, down)


def test_other_bytes_are_typed_errors(processor):
    ck, keys = processor
    with pytest.raises(encint.Error):
        ADD.run(keys, b"not an uplink" * 10)
    with pytest.raises(encint.Error):
        ADD.decrypt_outputs(ck, b"")
    up = ADD.encrypt_inputs(ck, {"x": 1, "y": 2})
    with pytest.raises(encint.FormatError):
        ADD.run(keys, up[: len(up) // 2])

"""The bubble-sort program of examples/bubble_sort.asm on the encrypted byte processor:
run in the clear, then encrypted (client encrypts, server runs, client decrypts)."""

import pathlib
import sys

import encint

src = (pathlib.Path(__file__).resolve().parents[1] / "bubble_sort.asm").read_text()
data = [9, 3, 200, 0, 17]
if len(sys.argv) > 1 and sys.argv[1] == "--small":
    # CI: three elements keep the encrypted run short.
    src = src.replace("const n = 5", "const n = 3")
    data = data[:3]

program = encint.Program(src)
print("cost:", program.cost())
print("clear:", program.run_clear({"a": data}))

ck, server_keys = encint.ProcessorKeys.generate()  # client key + server-side keys
uplink = program.encrypt_inputs(ck, {"a": data})  # client
downlink = program.run(server_keys, uplink)  # server
out = program.decrypt_outputs(ck, downlink)  # client
print("encrypted:", out)
assert out == {"a": sorted(data)}

"""Forward+backward time of the Triton kernels (kernels.triton_cell) at the GPU
benchmark's shapes for a few block sizes, full float32 and TF32 products,
against the per-step PyTorch kernel and cuDNN's LSTM, in one run. Needs CUDA.

    python scripts/tune_triton.py --output metrics/tune-triton.json
"""
import argparse
import json
import statistics
import time

import torch

from spacy_elstm.pytorch import Recurrence, kernels
from spacy_elstm.pytorch.kernels import triton_cell

SHAPES = [(32, 25, 128), (64, 50, 256), (16, 200, 256), (8, 1000, 512)]
BLOCKS = [(16, 64, 32), (16, 32, 32), (16, 128, 32), (32, 64, 32), (16, 64, 64), (32, 32, 32)]


def median_ms(fn, repeats: int) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=None, help="write the rows as JSON here")
    args = parser.parse_args()
    device = torch.device("cuda:0")
    rows = []
    for batch, length, width in SHAPES:
        torch.manual_seed(0)
        repeats = 10 if length >= 1000 else 20
        x = torch.randn(batch, length, width, device=device, requires_grad=True)
        lengths = torch.full((batch,), length)
        lstm = torch.nn.LSTM(width, width, batch_first=True).to(device)
        rec = Recurrence(cell="elstm", input_width=width, hidden_width=width,
                         period=100).to(device)
        row = {"shape": [batch, length, width], "gpu": torch.cuda.get_device_name(device),
               "cudnn_lstm_ms": median_ms(lambda: lstm(x)[0].sum().backward(), repeats)}
        with kernels.use("torch"):
            row["torch_kernel_ms"] = median_ms(lambda: rec(x, lengths).sum().backward(),
                                               max(3, repeats // 3))
        saved = (triton_cell.BLOCK_ROWS, triton_cell.BLOCK_COLS, triton_cell.BLOCK_K,
                 torch.backends.cudnn.allow_tf32)
        for tf32 in (False, True):
            torch.backends.cudnn.allow_tf32 = tf32
            for blocks in BLOCKS:
                triton_cell.BLOCK_ROWS, triton_cell.BLOCK_COLS, triton_cell.BLOCK_K = blocks
                with kernels.use("triton"):
                    ms = median_ms(lambda: rec(x, lengths).sum().backward(), repeats)
                name = "tf32" if tf32 else "float32"
                row[f"triton_{name}_{'_'.join(map(str, blocks))}_ms"] = ms
        (triton_cell.BLOCK_ROWS, triton_cell.BLOCK_COLS, triton_cell.BLOCK_K,
         torch.backends.cudnn.allow_tf32) = saved
        rows.append(row)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}),
              flush=True)
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"benchmark": "tune-triton", "torch": torch.__version__, "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()

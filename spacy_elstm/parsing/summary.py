"""What a run of `spacy-elstm parse` reports: its `Summary` (docs, words,
time, failures, shards written and skipped, texts cut into pieces, each
worker's peak memory) and the progress bar that counts it on stderr.
"""
import sys
import time
from dataclasses import dataclass, field
from typing import List

@dataclass
class Summary:
    docs: int = 0
    words: int = 0
    seconds: float = 0.0
    failures: int = 0
    written: int = 0
    skipped: int = 0
    cut: int = 0  # texts longer than --max-length, cut into pieces
    startup: float = 0.0  # starting or joining a cluster, not in `seconds`
    peak_rss: List[int] = field(default_factory=list)  # bytes, one per worker process
    errors_file: str = ""  # where the failures are listed

    def line(self) -> str:
        rate = self.words / self.seconds if self.seconds > 0 else 0.0
        failures = f"{self.failures} failures" + (
            f" (listed in {self.errors_file})" if self.failures and self.errors_file else "")
        return (f"{self.docs} docs, {self.words} words in {self.seconds:.1f} s "
                f"({rate:.0f} words/s); {failures}; "
                f"{self.written} shards written, {self.skipped} skipped"
                + (f"; {self.startup:.1f} s to start or join the cluster" if self.startup else ""))

    @property
    def all_failed(self) -> bool:
        """Bad input and not one doc parsed, now or in an earlier run."""
        return self.failures > 0 and self.written + self.skipped == 0


class ProgressBar:
    """Docs done, with docs/s and words/s, on stderr (nothing if not enabled);
    it also times the run into `summary.seconds`."""

    def __init__(self, enabled: bool):
        self.start = time.perf_counter()
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(unit=" docs", file=sys.stderr, dynamic_ncols=True)

    def update(self, summary: Summary, docs: int) -> None:
        if self.bar is not None:
            self.bar.update(docs)
            elapsed = max(time.perf_counter() - self.start, 1e-9)
            self.bar.set_postfix_str(f"{summary.docs / elapsed:.0f} docs/s, "
                                     f"{summary.words / elapsed:.0f} words/s", refresh=False)

    def close(self, summary: Summary) -> None:
        if self.bar is not None:
            self.bar.close()
        summary.seconds = time.perf_counter() - self.start

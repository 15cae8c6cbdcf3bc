"""What the corpus-parsing tests share: a small trained pipeline and texts to parse."""
from pathlib import Path

MODEL = Path(__file__).parent / "fixtures" / "compat_models" / "biaffine_dbrnn"
WORDS = "the a dog cat saw chased quickly big small house near".split()
TEXTS = [" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 4 + i % 6)) + "."
         for i in range(240)]

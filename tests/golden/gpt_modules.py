"""The book's chapter 4 GPTModel (scripts/book_gpt.py, the project's one copy of
rasbt/LLMs-from-scratch ch04/01_main-chapter-code/gpt.py) built on
book_modules.MultiHeadAttention, the 3.6.2 class that records each head's stages as it
runs, so that golden data comes from the book's own code."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import book_gpt  # noqa: E402
from book_gpt import generate, generate_text_simple  # noqa: E402,F401
from book_modules import MultiHeadAttention  # noqa: E402


class GPTModel(book_gpt.GPTModel):
    def __init__(self, cfg):
        super().__init__(cfg, attention=MultiHeadAttention)

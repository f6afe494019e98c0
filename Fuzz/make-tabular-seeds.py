"""Writes FuzzTabular's seeds to Fuzz/corpus/tabular/: small CSV tables, each behind a trainer byte
and an options byte (see Fuzz/Sources/FuzzTabular/FuzzTabular.swift for the layout). Standard
library only; deterministic. Called by Fuzz/make-seeds.sh."""
import os
import random
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "Fuzz/corpus/tabular"


def table(rows, seed, columns):
    """A header and `rows` rows; `columns` maps a name to a function of (random, row index)."""
    rng = random.Random(seed)
    lines = [",".join(columns)]
    for r in range(rows):
        lines.append(",".join(str(f(rng, r)) for f in columns.values()))
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.remove(os.path.join(OUT, name))
    numbers = table(40, 1, {"x": lambda g, r: round(g.uniform(-1, 1), 3), "y": lambda g, r: round(g.uniform(0, 5), 2),
                            "label": lambda g, r: "yes" if r % 3 else "no"})
    mixed = table(30, 2, {"color": lambda g, r: g.choice(["red", "green", "blue", ""]), "n": lambda g, r: g.randint(0, 9),
                          "price": lambda g, r: round(g.uniform(1, 100), 1), "kind": lambda g, r: g.choice(["a", "b", "c"])})
    holes = table(25, 3, {"a": lambda g, r: "" if r % 4 == 0 else round(g.gauss(0, 1), 2), "b": lambda g, r: g.choice(["1", "2", "nan"]),
                          "target": lambda g, r: g.randint(0, 2)})
    quoted = 'name,"score, raw",label\n"Ann ""A""",1.5,x\nBob,2,y\n"multi\nline",3,x\nDee,,y\n'
    vectors = 'v,label\n"[1, 2]",a\n"[3, 4]",b\n"[5, 6]",a\n"[7, 8]",b\n'
    seeds = {
        "boosted-classifier": (0, 0x02, numbers), "boosted-regressor": (1, 0x31, numbers),
        "forest-classifier": (2, 0x03, mixed), "forest-regressor": (3, 0x12, mixed),
        "tree-classifier": (4, 0x52, holes), "tree-regressor": (5, 0x10, holes),
        "logistic": (6, 0x12, quoted), "linear": (7, 0x01, numbers), "vectors": (0, 0x11, vectors),
        "one-row": (2, 0x10, "a,b\n1,x\n"), "header-only": (0, 0x00, "a,b,label\n"),
    }
    for name, (trainer, options, text) in seeds.items():
        with open(os.path.join(OUT, f"{name}.bin"), "wb") as file:
            file.write(bytes([trainer, options]) + text.encode())


if __name__ == "__main__":
    main()

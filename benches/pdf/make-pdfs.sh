#!/bin/sh
# Makes the PDFs of the extraction benchmark (BENCHMARKS.md) in DIR: text PDFs written by
# Ghostscript from generated PostScript (20 and 10,000 pages), an image-only copy (a "scan"),
# two encrypted copies (qpdf: with and without a user password), a truncated copy and random
# bytes, plus a vault of 1,000 distinct PDFs in DIR/vault1k.
# Needs: python3, ghostscript (ps2pdf, gs), qpdf.
set -eu
dir=${1:?usage: make-pdfs.sh DIR}
mkdir -p "$dir"
cd "$dir"
python3 - <<'PY'
import random
random.seed(1)
words = ("kangaroo wombat platypus echidna quokka dingo koala numbat bilby possum invoice "
         "manual paper daemon lock gradle kotlin compile").split()
def doc(pages, name):
    with open(name, "w") as f:
        f.write("%!PS\n")
        for p in range(pages):
            f.write("/Helvetica-Bold findfont 14 scalefont setfont 72 740 moveto (Section %d) show\n" % (p + 1))
            f.write("/Times-Roman findfont 11 scalefont setfont\n")
            y = 710
            for _ in range(40):
                f.write("72 %d moveto (%s) show\n" % (y, " ".join(random.choice(words) for _ in range(10))))
                y -= 16
            f.write("showpage\n")
doc(20, "text20.ps")
doc(10000, "big10k.ps")
PY
ps2pdf text20.ps text20.pdf
ps2pdf big10k.ps big10k.pdf
gs -q -dNOPAUSE -dBATCH -sDEVICE=pdfimage24 -r100 -sOutputFile=scan.pdf text20.pdf
qpdf --encrypt user owner 256 -- text20.pdf encrypted.pdf
qpdf --encrypt "" owner 256 -- text20.pdf encrypted-nouser.pdf
head -c 12000 text20.pdf > truncated.pdf
head -c 200000 /dev/urandom > random.pdf
python3 - <<'PY'
import os
b = open("text20.pdf", "rb").read()
for i in range(1000):
    d = "vault1k/d%02d" % (i // 100)
    os.makedirs(d, exist_ok=True)
    # A distinct trailing comment: a distinct blake3, so every copy is extracted.
    open("%s/paper%04d.pdf" % (d, i), "wb").write(b + b"%% copy %d\n" % i)
PY

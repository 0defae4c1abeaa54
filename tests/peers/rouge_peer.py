"""Peer values for crate/src/rouge: rouge-score 0.1.2 (with nltk's PorterStemmer) on varied inputs.

Run with the pinned reference environment:

    /tmp/pyref/bin/python tests/peers/rouge_peer.py

It writes tests/fixtures/peers/rouge_pairs.json (ROUGE-L of ~200 (reference, prediction) pairs, with and
without stemming, plus the tokens rouge-score produced) and tests/fixtures/peers/rouge_stems.json (nltk
PorterStemmer().stem(word) for words built to reach every rule). Inputs are generated from a fixed seed.
"""
import json
import random
from importlib.metadata import version

from nltk.stem import porter
from rouge_score import rouge_scorer, tokenize

OUT = "tests/fixtures/peers/"

HAND_PAIRS = [
    ("the cat is on the mat", "the cat sat on the mat"),
    ("Ron Weasley and Hermione Granger", "Harry Potter's best friends are Ron and Hermione."),
    ("", ""),
    ("", "prediction only"),
    ("reference only", ""),
    ("...", "!!! ??? ..."),
    ("cafe au lait naive resume", "Café au lait, naïve résumé!"),
    ("run running ran", "running runs ran runner"),
    ("a b a b", "a a a a b"),
    ("2001 a space odyssey 1984", "Numbers 1984 and 2001: A Space Odyssey"),
    ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log."),
    ("ponies generously running", "pony generous runs"),
    ("東京は日本の首都です", "Tokyo is the capital of Japan"),
    ("Tokyo 東京 capital", "東京 Tokyo"),
    ("Москва столица России", "Moscow is the capital"),
    ("emoji 😀 test 🚀 here", "emoji test here 😀"),
    ("İstanbul is big", "istanbul is big"),
    ("\u212a is the kelvin sign", "k is the kelvin sign"),
    ("full\u00a0width\u2003spaces\tand\nnewlines", "full width spaces and newlines"),
    ("ＡＢＣ fullwidth letters", "abc fullwidth letters"),
    ("arabic digits ٣٤٥ and 345", "digits 345"),
    ("e-mail: someone@example.com, tel. +1 (555) 010-9999", "email someone example com tel 1 555 010 9999"),
    ("C++ and C# are languages; so is R.", "c and c are languages so is r"),
    ("don't won't can't shouldn't", "do not will not cannot should not"),
    ("3.14159 is pi, 2.71828 is e", "pi is 3 14159 and e is 2 71828"),
    ("UPPER lower MiXeD", "upper LOWER mixed"),
    ("repeated repeated repeated words words", "repeated words repeated words"),
    ("the the the the", "the"),
    ("a", "a"),
    ("a", "b"),
    ("relational conditional rational", "relate condition ration"),
    ("caresses ponies ties caress cats", "caress poni ti caress cat"),
    ("feed agreed plastered bled motoring sing", "fe agre plaster bled motor sing"),
    ("hopping tanned falling hissing fizzed failing filing", "hop tan fall hiss fizz fail file"),
    ("happy sky skies dying lying tying", "happi sky sky die lie tie"),
    ("generalizations organization organizational", "general organ organiz"),
    ("yyyy syzygy toy boy enjoy", "yyyy syzygi toi boi enjoy"),
    ("news innings outings cannings howe proceed exceed succeed", "news inning outing canning howe proceed"),
    ("archaeology geology theology biology", "archaeolog geolog theolog biolog"),
    ("hopefulness callousness decisiveness", "hope callous decis"),
    ("abcd1234 x9y8z7 99bottles", "abcd1234 99bottl"),
    ("tab\tseparated\tvalues", "tab separated values"),
    ("   leading and trailing spaces   ", "leading and trailing spaces"),
    ("über straße façade coöperate", "uber strasse facade cooperate"),
    ("naïve", "naive"),
    ("ǅemal ǈudevit", "dzemal ljudevit"),
    ("ΣΊΣΥΦΟΣ σίσυφος", "sisyphus"),
]

WORDS = ("the of and to in is was he for it with as his on be at by had are but from or have an they which one "
         "you were her all she there would their we him been has when who will more no if out so said what up its "
         "about into than them can only other new some could time these two may then do first any my now such "
         "like our over man me even most made after also did many before must through back years where much your "
         "way well down should because each just those people how too little state good very make world still own "
         "see men work long get here between both life being under never day same another know while last might "
         "us great old year off come since against go came right used take three leakage unlearning model "
         "memorized secret password author novel fictitious running ponies generously relational happiness "
         "connected connections connective hopeful hopefully hopping hoped agreed feeding").split()


def random_text(rng):
    n = rng.randint(0, 14)
    parts = []
    for _ in range(n):
        r = rng.random()
        if r < 0.75:
            w = rng.choice(WORDS)
            if rng.random() < 0.2:
                w = w.capitalize() if rng.random() < 0.5 else w.upper()
            parts.append(w)
        elif r < 0.85:
            parts.append(str(rng.randint(0, 3000)))
        elif r < 0.93:
            parts.append(rng.choice([",", ".", "!", "?", "--", "'s", "(", ")", ":", ";", "/", "&", "é", "日本"]))
        else:
            parts.append(rng.choice(["naïve", "Zoë", "ça", "東京", "😀", "İ", "\u212a", "ß"]))
    sep = rng.choice([" ", " ", " ", "  ", "\t", "\n"])
    return sep.join(parts)


def pairs():
    rng = random.Random(7)
    out = list(HAND_PAIRS)
    while len(out) < 200:
        ref = random_text(rng)
        # Predictions that share a lot with the reference, so the LCS is non-trivial.
        if rng.random() < 0.6:
            toks = ref.split()
            rng.shuffle(toks) if rng.random() < 0.3 else None
            keep = [t for t in toks if rng.random() < 0.7]
            extra = random_text(rng).split()
            pred = " ".join(keep[: len(keep) // 2] + extra[:3] + keep[len(keep) // 2:])
        else:
            pred = random_text(rng)
        out.append((ref, pred))
    return out


def stem_words():
    rng = random.Random(11)
    hand = ("caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized "
            "hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational "
            "valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization "
            "predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti "
            "sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival "
            "allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
            "dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate "
            "rate cease controll roll generously running runs dying lying tying skies news innings inning "
            "outings outing cannings canning howe proceed exceed succeed spied died flies dies tied lies enjoy "
            "archaeology geology theology biology fully beautifully hopefulli yyyy syzygy toyed played "
            "crying trying flying spying generalization generalizations oscillators fluently differently "
            "agreement agreements sensational conditionally rationally possibly probably definitely "
            "abcd 1234 a1b2 x9y8z7 99bottles yes yesterday youth yyy yyyyyy yyyyyyy aaaa eeed seed need bleed "
            "bling ying ying bying died dies skis sled sleds alli ally tally rally sally reallli logi logic "
            "apologi analogi eulogy eulogies nationalism rationalization bliss blissful alliance fulli")
    words = hand.split()
    roots = ("connect gener nation ration hope help care form relat condit agre feed run hop fall fil happ sky "
             "organ real util digit sens activ adopt depend replac adjust allow infer electr troubl conflat siz "
             "motor plaster bl trip analog analogous vil differ radic conform valen hesit oper feud decis "
             "callous ton mat cat bat pony tie die lie spy fly cry tr y b abc x1 2x").split()
    suffixes = ("_ s es ies ied ed ing eed ly li y e ness ful fulness ful fulli ation ational tional ization "
                "izer izes ize ise ism ist iti ity ive iveness ous ousli ously ousness al ally alli alism ance "
                "ence ancy enci anci er ers ic ical icate iciti ative alize able ably abli bli ible ant ement "
                "ment ent ently entli ion ions sion tion ou ate ated ating ator ators ll logi logy eli ely "
                "iness ier iest").split()
    for root in roots:
        for suf in suffixes:
            w = root + ("" if suf == "_" else suf)
            if rng.random() < 0.25:
                words.append(w)
    alphabet = "aeiouybcdlmnrstgz0123456789"
    for _ in range(500):
        n = rng.randint(4, 12)
        words.append("".join(rng.choice(alphabet) for _ in range(n)))
    seen = set()
    uniq = [w for w in words if not (w in seen or seen.add(w))]
    return uniq


def main():
    scorers = {s: rouge_scorer.RougeScorer(["rougeL"], use_stemmer=s) for s in (False, True)}
    cases = []
    for ref, pred in pairs():
        entry = {"reference": ref, "prediction": pred}
        for s, scorer in scorers.items():
            key = "stem" if s else "plain"
            sc = scorer.score(ref, pred)["rougeL"]
            entry[key] = {
                "precision": float(sc.precision), "recall": float(sc.recall), "fmeasure": float(sc.fmeasure),
                "reference_tokens": scorer._tokenizer.tokenize(ref),
                "prediction_tokens": scorer._tokenizer.tokenize(pred),
            }
        cases.append(entry)
    versions = {p: version(p) for p in ["rouge-score", "nltk"]}
    with open(OUT + "rouge_pairs.json", "w", encoding="utf-8") as fh:
        json.dump({
            "description": "rouge_score.rouge_scorer.RougeScorer(['rougeL'], use_stemmer=S).score(reference, "
                           "prediction)['rougeL'] for S = False ('plain') and True ('stem'), with the tokens its "
                           "default tokenizer produced. Generated by tests/peers/rouge_peer.py.",
            "versions": versions, "cases": cases,
        }, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")
    stemmer = porter.PorterStemmer()
    words = stem_words()
    with open(OUT + "rouge_stems.json", "w", encoding="utf-8") as fh:
        json.dump({
            "description": "nltk.stem.porter.PorterStemmer() (default NLTK_EXTENSIONS mode, as rouge-score "
                           "uses it) .stem(word). Generated by tests/peers/rouge_peer.py.",
            "versions": versions, "stems": [[w, stemmer.stem(w)] for w in words],
        }, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")
    assert tokenize.tokenize("A b", None) == ["a", "b"]


if __name__ == "__main__":
    main()

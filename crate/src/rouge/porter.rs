//! The Porter stemmer exactly as rouge-score applies it: NLTK's `PorterStemmer()` in its default
//! `NLTK_EXTENSIONS` mode (nltk 3.10.4, `nltk/stem/porter.py`), ported rule for rule.
//!
//! This is Porter's 1980 algorithm plus Martin Porter's later extensions plus NLTK's own: a table of
//! irregular forms (`skies → sky`, `dying → die`, ...), `ies`/`ied` on four-letter words (`dies → die`),
//! `y → i` only after a consonant that is not the whole stem, `alli → al` tried first in step 2, `fulli`,
//! `logi`, and the two-letter `*o` condition. It is *not* Snowball English (the `rust-stemmers` crate), which
//! stems many words differently (`generously`: Porter `gener`, Snowball `generous`).
//!
//! Words are handled as sequences of Unicode scalar values like Python strings; rouge-score only ever passes
//! lowercase ASCII `[a-z0-9]` tokens longer than three characters.

const VOWELS: [char; 5] = ['a', 'e', 'i', 'o', 'u'];

/// NLTK's irregular forms (`self.pool`): form → stem.
const IRREGULAR: [(&str, &str); 16] = [
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

type Word = Vec<char>;

/// Consonant flags for every position: a `y` is a consonant at the start or after a vowel.
fn consonant_flags(w: &[char]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(w.len());
    for (i, &ch) in w.iter().enumerate() {
        let f = if VOWELS.contains(&ch) {
            false
        } else if ch == 'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(f);
    }
    flags
}

fn is_consonant(w: &[char], i: usize) -> bool {
    consonant_flags(&w[..=i])[i]
}

/// Porter's `m`: the number of vowel→consonant transitions.
fn measure(stem: &[char]) -> usize {
    consonant_flags(stem).windows(2).filter(|p| !p[0] && p[1]).count()
}

fn positive_measure(stem: &[char]) -> bool {
    measure(stem) > 0
}

fn contains_vowel(stem: &[char]) -> bool {
    consonant_flags(stem).iter().any(|&c| !c)
}

/// `*d`: ends with a double consonant.
fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// `*o`: ends consonant–vowel–consonant, the last not `w`, `x` or `y`; NLTK also accepts a two-letter
/// vowel–consonant word.
fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

fn ends_with(w: &[char], suffix: &str) -> bool {
    let s: Vec<char> = suffix.chars().collect();
    w.len() >= s.len() && w[w.len() - s.len()..] == s[..]
}

fn strip(w: &[char], suffix: &str) -> Word {
    w[..w.len() - suffix.chars().count()].to_vec()
}

fn join(stem: &[char], replacement: &str) -> Word {
    stem.iter().copied().chain(replacement.chars()).collect()
}

/// What a rule's stem must satisfy.
enum Cond<'a> {
    Always,
    PositiveMeasure,
    MeasureAbove1,
    Custom(&'a dyn Fn(&[char]) -> bool),
}

impl Cond<'_> {
    fn holds(&self, stem: &[char]) -> bool {
        match self {
            Cond::Always => true,
            Cond::PositiveMeasure => positive_measure(stem),
            Cond::MeasureAbove1 => measure(stem) > 1,
            Cond::Custom(f) => f(stem),
        }
    }
}

/// Suffix `"*d"` stands for "ends with a double consonant" (the stem then drops both letters).
struct Rule<'a> {
    suffix: &'a str,
    replacement: String,
    cond: Cond<'a>,
}

fn rule<'a>(suffix: &'a str, replacement: &str, cond: Cond<'a>) -> Rule<'a> {
    Rule {
        suffix,
        replacement: replacement.to_string(),
        cond,
    }
}

/// The first rule whose suffix matches decides: its replacement if the condition holds, else no change.
fn apply_rules(word: Word, rules: &[Rule<'_>]) -> Word {
    for r in rules {
        if r.suffix == "*d" {
            if ends_double_consonant(&word) {
                let stem = &word[..word.len() - 2];
                return if r.cond.holds(stem) {
                    join(stem, &r.replacement)
                } else {
                    word
                };
            }
            continue;
        }
        if ends_with(&word, r.suffix) {
            let stem = strip(&word, r.suffix);
            return if r.cond.holds(&stem) {
                join(&stem, &r.replacement)
            } else {
                word
            };
        }
    }
    word
}

fn step1a(word: Word) -> Word {
    if ends_with(&word, "ies") && word.len() == 4 {
        return join(&strip(&word, "ies"), "ie");
    }
    apply_rules(
        word,
        &[
            rule("sses", "ss", Cond::Always),
            rule("ies", "i", Cond::Always),
            rule("ss", "ss", Cond::Always),
            rule("s", "", Cond::Always),
        ],
    )
}

fn step1b(word: Word) -> Word {
    if ends_with(&word, "ied") {
        let rep = if word.len() == 4 { "ie" } else { "i" };
        return join(&strip(&word, "ied"), rep);
    }
    if ends_with(&word, "eed") {
        let stem = strip(&word, "eed");
        return if measure(&stem) > 0 { join(&stem, "ee") } else { word };
    }
    let mut intermediate = None;
    for suffix in ["ed", "ing"] {
        if ends_with(&word, suffix) {
            let stem = strip(&word, suffix);
            if contains_vowel(&stem) {
                intermediate = Some(stem);
                break;
            }
        }
    }
    let Some(stem) = intermediate else {
        return word;
    };
    // contains_vowel(stem) guarantees a last letter.
    let last = stem.last().copied().unwrap_or(' ');
    let not_lsz = move |_: &[char]| !matches!(last, 'l' | 's' | 'z');
    let m1_cvc = |s: &[char]| measure(s) == 1 && ends_cvc(s);
    apply_rules(
        stem,
        &[
            rule("at", "ate", Cond::Always),
            rule("bl", "ble", Cond::Always),
            rule("iz", "ize", Cond::Always),
            rule("*d", &last.to_string(), Cond::Custom(&not_lsz)),
            rule("", "e", Cond::Custom(&m1_cvc)),
        ],
    )
}

fn step1c(word: Word) -> Word {
    let cond = |stem: &[char]| stem.len() > 1 && is_consonant(stem, stem.len() - 1);
    apply_rules(word, &[rule("y", "i", Cond::Custom(&cond))])
}

fn step2(word: Word) -> Word {
    if ends_with(&word, "alli") && positive_measure(&strip(&word, "alli")) {
        return step2(join(&strip(&word, "alli"), "al"));
    }
    // The `l` of `logi` stays with the stem when measuring, so `geology` and `theology` stem alike.
    let logi_stem = if word.len() >= 3 {
        word[..word.len() - 3].to_vec()
    } else {
        Vec::new()
    };
    let logi = move |_: &[char]| positive_measure(&logi_stem);
    let p = || Cond::PositiveMeasure;
    apply_rules(
        word,
        &[
            rule("ational", "ate", p()),
            rule("tional", "tion", p()),
            rule("enci", "ence", p()),
            rule("anci", "ance", p()),
            rule("izer", "ize", p()),
            rule("bli", "ble", p()),
            rule("alli", "al", p()),
            rule("entli", "ent", p()),
            rule("eli", "e", p()),
            rule("ousli", "ous", p()),
            rule("ization", "ize", p()),
            rule("ation", "ate", p()),
            rule("ator", "ate", p()),
            rule("alism", "al", p()),
            rule("iveness", "ive", p()),
            rule("fulness", "ful", p()),
            rule("ousness", "ous", p()),
            rule("aliti", "al", p()),
            rule("iviti", "ive", p()),
            rule("biliti", "ble", p()),
            rule("fulli", "ful", p()),
            rule("logi", "log", Cond::Custom(&logi)),
        ],
    )
}

fn step3(word: Word) -> Word {
    let p = || Cond::PositiveMeasure;
    apply_rules(
        word,
        &[
            rule("icate", "ic", p()),
            rule("ative", "", p()),
            rule("alize", "al", p()),
            rule("iciti", "ic", p()),
            rule("ical", "ic", p()),
            rule("ful", "", p()),
            rule("ness", "", p()),
        ],
    )
}

fn step4(word: Word) -> Word {
    let m = || Cond::MeasureAbove1;
    let ion = |stem: &[char]| measure(stem) > 1 && matches!(stem.last(), Some('s' | 't'));
    apply_rules(
        word,
        &[
            rule("al", "", m()),
            rule("ance", "", m()),
            rule("ence", "", m()),
            rule("er", "", m()),
            rule("ic", "", m()),
            rule("able", "", m()),
            rule("ible", "", m()),
            rule("ant", "", m()),
            rule("ement", "", m()),
            rule("ment", "", m()),
            rule("ent", "", m()),
            rule("ion", "", Cond::Custom(&ion)),
            rule("ou", "", m()),
            rule("ism", "", m()),
            rule("ate", "", m()),
            rule("iti", "", m()),
            rule("ous", "", m()),
            rule("ive", "", m()),
            rule("ize", "", m()),
        ],
    )
}

fn step5a(word: Word) -> Word {
    if ends_with(&word, "e") {
        let stem = strip(&word, "e");
        let m = measure(&stem);
        if m > 1 || (m == 1 && !ends_cvc(&stem)) {
            return stem;
        }
    }
    word
}

fn step5b(word: Word) -> Word {
    let without_last = word[..word.len().saturating_sub(1)].to_vec();
    let cond = move |_: &[char]| measure(&without_last) > 1;
    apply_rules(word, &[rule("ll", "l", Cond::Custom(&cond))])
}

/// Stems one word as NLTK's `PorterStemmer().stem(word)` (default `NLTK_EXTENSIONS` mode): lowercases it,
/// looks it up among NLTK's irregular forms, leaves words of at most two characters alone, and otherwise
/// applies steps 1a, 1b, 1c, 2, 3, 4, 5a and 5b.
///
/// # Examples
/// ```
/// use lethe::rouge::porter_stem;
/// assert_eq!(porter_stem("running"), "run");
/// assert_eq!(porter_stem("ponies"), "poni");
/// assert_eq!(porter_stem("generously"), "gener");
/// assert_eq!(porter_stem("dying"), "die");
/// ```
pub fn porter_stem(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some((_, stem)) = IRREGULAR.iter().find(|(form, _)| *form == lower) {
        return (*stem).to_string();
    }
    if word.chars().count() <= 2 {
        return lower;
    }
    let mut w: Word = lower.chars().collect();
    for step in [step1a, step1b, step1c, step2, step3, step4, step5a, step5b] {
        w = step(w);
    }
    w.into_iter().collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn paper_examples() {
        // Porter (1980) and NLTK docstring examples, with NLTK-mode results.
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("generously", "gener"),
            ("controlling", "control"),
            ("skies", "sky"),
            ("spied", "spi"),
            ("died", "die"),
            ("enjoy", "enjoy"),
            ("geology", "geolog"),
        ];
        for (w, want) in cases {
            assert_eq!(porter_stem(w), want, "{w}");
        }
    }

    #[test]
    fn y_runs_alternate() {
        assert_eq!(
            consonant_flags(&"syzygy".chars().collect::<Vec<_>>()),
            [true, false, true, false, true, false]
        );
        assert_eq!(consonant_flags(&"yyy".chars().collect::<Vec<_>>()), [true, false, true]);
        // A long run must neither recurse nor take quadratic time.
        let long = "y".repeat(20_000);
        assert_eq!(porter_stem(&long).len(), 20_000);
    }

    #[test]
    fn short_and_odd_words() {
        assert_eq!(porter_stem(""), "");
        assert_eq!(porter_stem("a"), "a");
        assert_eq!(porter_stem("AS"), "as");
        assert_eq!(porter_stem("1234"), "1234");
        assert_eq!(porter_stem("Running"), "run");
    }
}

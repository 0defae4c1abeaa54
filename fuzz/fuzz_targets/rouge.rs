#![no_main]
//! ROUGE-L on arbitrary text: the two halves of the input (split at the first NUL, else in the middle) as
//! reference and prediction. Checks: no panic (tokenizer, Porter stemmer, the bit-parallel LCS), scores in [0, 1],
//! precision and recall exchanged when the texts are, and the batch functions agree with the single score.

use lethe::rouge::{rouge_l, rouge_l_against, rouge_l_pairs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let (a, b) = match text.find('\0') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => {
            let mut mid = text.len() / 2;
            while !text.is_char_boundary(mid) {
                mid -= 1;
            }
            text.split_at(mid)
        }
    };
    for stem in [false, true] {
        let x = rouge_l(a, b, stem);
        let y = rouge_l(b, a, stem);
        for v in [x.precision, x.recall, x.fmeasure] {
            assert!((0.0..=1.0).contains(&v), "{x:?}");
        }
        assert_eq!((x.precision, x.recall, x.fmeasure), (y.recall, y.precision, y.fmeasure));
        let one = rouge_l_against(a, &[b], stem).expect("one small pair is within the work limit");
        assert_eq!(
            (one.precision[0], one.recall[0], one.fmeasure[0]),
            (x.precision, x.recall, x.fmeasure)
        );
        let pairs = rouge_l_pairs(&[a], &[b], stem).expect("one small pair");
        assert_eq!(pairs.fmeasure, one.fmeasure);
        // Identical texts: every token matches.
        let same = rouge_l(a, a, stem);
        assert!(same.fmeasure == 0.0 || same.fmeasure == 1.0, "{same:?}");
    }
});

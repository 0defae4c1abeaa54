//! Serialising floats that can be non-finite.
//!
//! serde_json writes NaN and ±inf as `null`, which would silently lose e.g. an infinite epsilon (perfect
//! separation). Result fields that can hold such values are annotated with these functions and serialise them as
//! the strings `"nan"`, `"inf"`, `"-inf"` — the convention of the project's golden vectors. Finite values are
//! ordinary numbers.
//!
//! A value that is not finite only because there is no number to give (a p-value, z or effect size that is 0/0 on
//! tied or all-zero data, a score with no spread to scale by) is not an answer a pipeline should read: fields of that
//! kind use [`finite`] and [`opt_finite`], which write `null`, and the report's headline and warnings say why.

use serde::ser::{SerializeSeq, Serializer};

fn word(v: f64) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// `#[serde(serialize_with = "crate::json::f64")]`
pub fn f64<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_str(word(*v))
    }
}

/// For `Option<f64>` fields.
pub fn opt_f64<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(x) => f64(x, s),
        None => s.serialize_none(),
    }
}

/// `#[serde(serialize_with = "crate::json::finite")]`: a finite value as a number, anything else as `null` (no
/// number: the report says why beside it).
pub fn finite<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

/// [`finite`] for `Option<f64>` fields: `None` and non-finite values are both `null`.
pub fn opt_finite<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(x) => finite(x, s),
        None => s.serialize_none(),
    }
}

/// For `Vec<f64>` fields.
pub fn vec_f64<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    struct F(f64);
    impl serde::Serialize for F {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            f64(&self.0, s)
        }
    }
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for x in v {
        seq.serialize_element(&F(*x))?;
    }
    seq.end()
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct T {
        #[serde(serialize_with = "super::f64")]
        a: f64,
        #[serde(serialize_with = "super::vec_f64")]
        b: Vec<f64>,
        #[serde(serialize_with = "super::opt_f64")]
        c: Option<f64>,
    }

    #[derive(serde::Serialize)]
    struct N {
        #[serde(serialize_with = "super::finite")]
        a: f64,
        #[serde(serialize_with = "super::finite")]
        b: f64,
        #[serde(serialize_with = "super::opt_finite")]
        c: Option<f64>,
        #[serde(serialize_with = "super::opt_finite")]
        d: Option<f64>,
    }

    #[test]
    fn values_with_no_number_are_null() {
        let n = N {
            a: f64::NAN,
            b: 0.25,
            c: Some(f64::NEG_INFINITY),
            d: Some(-1.5),
        };
        assert_eq!(
            serde_json::to_string(&n).unwrap(),
            r#"{"a":null,"b":0.25,"c":null,"d":-1.5}"#
        );
    }

    #[test]
    fn non_finite_values_survive_json() {
        let t = T {
            a: f64::INFINITY,
            b: vec![1.5, f64::NAN, f64::NEG_INFINITY],
            c: Some(2.0),
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"a":"inf","b":[1.5,"nan","-inf"],"c":2.0}"#
        );
    }
}

//! Option enums shared by several procedures (named and defined as in scipy).

use serde::{Deserialize, Serialize};

/// The alternative hypothesis of a test, as scipy's `alternative=`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    #[default]
    TwoSided,
    Less,
    Greater,
}

/// How a rank test's p-value is computed, as scipy's `method=`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PValueMethod {
    /// scipy's rule for choosing between exact and asymptotic (documented per test).
    #[default]
    Auto,
    Exact,
    Asymptotic,
}

impl std::str::FromStr for Alternative {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "two-sided" => Ok(Self::TwoSided),
            "less" => Ok(Self::Less),
            "greater" => Ok(Self::Greater),
            _ => Err(crate::Error::param("alternative", s, "one of two-sided, less, greater")),
        }
    }
}

impl std::str::FromStr for PValueMethod {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "exact" => Ok(Self::Exact),
            "asymptotic" => Ok(Self::Asymptotic),
            _ => Err(crate::Error::param("method", s, "one of auto, exact, asymptotic")),
        }
    }
}

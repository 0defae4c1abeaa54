//! Errors of the analysis layer: a core error plus the input it concerns, as data, so the page can show the message
//! next to that input and the CLI can name its file.

use std::fmt;

/// An error to show a person: next to its input in the page, on stderr from the CLI.
///
/// `input` is the key of the page control the problem concerns: a source id (`"source:3"`) for a file that cannot
/// be read, or a role of an analysis (`"it"`, `"target"`, `"forget"`, `"scores"`, ...) for a problem with what was
/// picked for that role. `None` when it concerns no single input (a bad parameter).
///
/// `backend` marks a failure of the compute backend rather than of the request (no GPU adapter, a lost device, a
/// GPU error, a problem too large for the device): the same request can be retried on the CPU. `full` marks a
/// request this module cannot serve (the lean module: a file format other than .npy, an analysis it leaves out);
/// the worker then loads the full module and asks it. `usage` marks a request that is malformed in itself (an
/// option value, options that do not go together) rather than a problem with the data: the CLI exits with 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub input: Option<String>,
    pub message: String,
    pub backend: bool,
    pub full: bool,
    pub usage: bool,
    /// The stable code of a guardrail's refusal (the same codes as [`crate::Warning::code`]); `None` otherwise.
    pub code: Option<String>,
}

impl Error {
    /// An error about no input in particular.
    pub fn msg(message: impl Into<String>) -> Self {
        Self {
            input: None,
            message: message.into(),
            backend: false,
            full: false,
            usage: false,
            code: None,
        }
    }

    /// An error about the input with page key `input`.
    pub fn at(input: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            input: Some(input.into()),
            message: message.into(),
            backend: false,
            full: false,
            usage: false,
            code: None,
        }
    }

    /// A request this module cannot serve, for the full module to take (see [`Error::full`]).
    pub fn needs_full(message: impl Into<String>) -> Self {
        Self {
            full: true,
            ..Self::msg(message)
        }
    }

    /// A data error about the input with page key `input`, with `prefix` before the core's message; a format
    /// this build cannot read is marked for the full module.
    pub fn data(input: impl Into<String>, prefix: &str, e: &lethe::data::DataError) -> Self {
        Self {
            full: matches!(e, lethe::data::DataError::NotBuilt { .. }),
            ..Self::at(input, format!("{prefix}{e}"))
        }
    }

    /// A guardrail's refusal: code `code` (see [`Error::code`]), about `input` when it concerns one.
    pub fn refused(code: &str, input: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            input: input.map(str::to_string),
            code: Some(code.to_string()),
            ..Self::msg(message)
        }
    }

    /// Marks the error as a malformed request (see [`Error::usage`]).
    #[must_use]
    pub fn usage(mut self) -> Self {
        self.usage = true;
        self
    }

    /// Attaches `input` unless the error already names one.
    #[must_use]
    pub fn or_at(mut self, input: &str) -> Self {
        if self.input.is_none() {
            self.input = Some(input.to_string());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<lethe::Error> for Error {
    fn from(e: lethe::Error) -> Self {
        let backend = matches!(e, lethe::Error::Backend(_));
        Self {
            backend,
            ..Self::msg(e.to_string())
        }
    }
}

impl From<lethe::data::DataError> for Error {
    fn from(e: lethe::data::DataError) -> Self {
        Self {
            full: matches!(e, lethe::data::DataError::NotBuilt { .. }),
            ..Self::msg(e.to_string())
        }
    }
}

/// Result alias of the analysis layer.
pub type Result<T> = std::result::Result<T, Error>;

/// The first name the core put in backticks in `message` (core messages name their inputs as `` `name` ``, a role
/// marked as `` `{role:name}` ``: the name).
pub fn named_input(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    let name = &message[start..start + len];
    Some(
        name.strip_prefix("{role:")
            .and_then(|r| r.strip_suffix('}'))
            .unwrap_or(name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_backticked_name() {
        assert_eq!(named_input("input `target[0]` has 3 rows"), Some("target[0]"));
        assert_eq!(named_input("input `{role:target[0]}` has 3 rows"), Some("target[0]"));
        assert_eq!(named_input("no names here"), None);
        assert_eq!(named_input("one ` tick"), None);
    }
}

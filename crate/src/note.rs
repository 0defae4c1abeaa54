//! A note the core attaches to what it read or computed, with its kind: the stable code a report gives it travels
//! with the note from where it is raised (STYLE.md §12), so no caller recovers it from the message's wording.
//!
//! A note serialises as its message alone, as the core's `warnings` lists always have.

use std::fmt;
use std::ops::Deref;

use serde::{Serialize, Serializer};

/// What a note is about. Several kinds may share a code: the codes are the reports' contract, the kinds are what
/// callers act on (leave out the note on non-finite values, drop the note on ignored keys, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoteKind {
    /// A reader found bytes after an array's data and ignored them.
    TrailingBytes,
    /// A reader took a text table's first row as column names.
    HeaderRow,
    /// A reader took a text column as row labels, or left a label/ID column out of the features.
    LabelColumn,
    /// A reader found NaN or ±inf in what it loaded.
    NonFinite,
    /// A JSON reader ignored keys whose values are not arrays.
    IgnoredKeys,
    /// The file's name is not valid UTF-8, so it is shown lossily.
    FileNameNotUtf8,
    /// Anything else a file reader says (an ignored array name or member, a format its name does not match, ...).
    Reader,
    /// Unlearning-competition score: examples every attack was discarded on, scored epsilon = 0.
    ExamplesUnscored,
    /// Unlearning-competition score: metric.py's bucket table is empty for so few models.
    NoBuckets,
    /// Unlearning-competition score: perfectly separated examples metric.py cannot score, capped.
    SeparationCapped,
    /// Unlearning-competition score: examples whose metric.py epsilon depends on PyTorch's thread count.
    ThreadsChangeMetricPy,
    /// SDE: subsets with an odd row count, whose last row is not used.
    OddRows,
    /// SDE: the references are not clearly separable (the analysis layer replaces this note by its own check).
    ReferencesNotSeparable,
    /// Calibrated SDE: the in-training pool is too small for disjoint reference subsets, so they overlap.
    OverlappingInTraining,
    /// Calibrated SDE: the out-of-training pool is too small for disjoint reference subsets, so they overlap.
    OverlappingOutOfTraining,
    /// Calibrated SDE: rows in both the in-training and the out-of-training references.
    SharedReferenceRows,
    /// Leakage bounds: samples exactly 0, whose probability mass the variance bound leaves out.
    MassAtZeroLeftOut,
    /// Leakage bounds: a variance bound above 1/4, which carries no information on [0, 1].
    SdBoundUninformative,
    /// Leakage bounds: a one-sided DKW bound with alpha above 1/2, where it is not proven.
    AlphaAboveHalf,
}

impl NoteKind {
    /// The stable code a report gives a note of this kind.
    pub const fn code(self) -> &'static str {
        match self {
            Self::TrailingBytes => "trailing_bytes",
            Self::HeaderRow => "header_row",
            Self::LabelColumn => "label_column",
            Self::FileNameNotUtf8 => "file_name_not_utf8",
            Self::NonFinite | Self::IgnoredKeys | Self::Reader => "file_reader",
            Self::ExamplesUnscored => "examples_unscored",
            Self::NoBuckets => "no_buckets",
            Self::SeparationCapped => "separation_capped",
            Self::ThreadsChangeMetricPy => "threads_change_metric_py",
            Self::OddRows => "odd_rows",
            Self::ReferencesNotSeparable => "sde",
            Self::OverlappingInTraining | Self::OverlappingOutOfTraining => "overlapping_references",
            Self::SharedReferenceRows => "shared_reference_rows",
            Self::MassAtZeroLeftOut => "mass_at_zero_left_out",
            Self::SdBoundUninformative => "sd_bound_uninformative",
            Self::AlphaAboveHalf => "alpha_above_half",
        }
    }
}

/// A note: its kind and the message, in a user's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    pub message: String,
}

impl Note {
    pub fn new(kind: NoteKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The stable code of the note's kind ([`NoteKind::code`]).
    pub const fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl Deref for Note {
    type Target = str;

    fn deref(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Serialize for Note {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.message)
    }
}

//! Placeholder: Article 6.9 / 5.2.2 analysis (being written).

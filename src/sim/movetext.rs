//! SAN movetext ("1. e4 e5 2. Nf3 …") to legal moves.
//!
//! The built-in games are typed from their published scores, and a typo
//! must be caught when the game is loaded, naming the ply and the move, not
//! surface later as a simulated board that does something odd. So every
//! token is resolved against the position it is played in.

use shakmaty::san::{SanError, SanPlus};
use shakmaty::{Chess, Move, Position};

use super::SimError;

/// Parses movetext into the legal moves it names, from the initial
/// position. Move numbers, comments (`{…}`, `; …`), variations (`(…)`),
/// NAGs (`$1`), annotation marks (`!`, `?`) and a result token are ignored;
/// parsing stops at the result token.
pub fn parse_movetext(text: &str) -> Result<Vec<Move>, SimError> {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for token in tokens(text)? {
        if is_result(&token) {
            break;
        }
        let Some(san) = move_part(&token) else {
            continue;
        };
        let ply = moves.len() as u32 + 1;
        let m = resolve(&pos, &san, ply)?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(moves)
}

/// Splits movetext into whitespace-separated tokens, dropping comments,
/// variations and tag-pair brackets.
fn tokens(text: &str) -> Result<Vec<String>, SimError> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let skip_to = match c {
            '{' => Some('}'),
            '[' => Some(']'),
            ';' => Some('\n'),
            '(' => Some(')'),
            _ => None,
        };
        if c.is_whitespace() || skip_to.is_some() {
            flush(&mut word, &mut out);
        } else {
            word.push(c);
        }
        if let Some(end) = skip_to {
            skip_group(&mut chars, c, end)?;
        }
    }
    flush(&mut word, &mut out);
    Ok(out)
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(std::mem::take(word));
    }
}

/// Skips to the `end` that closes an `open` already read (variations nest).
fn skip_group(chars: &mut std::str::Chars<'_>, open: char, end: char) -> Result<(), SimError> {
    let mut depth = 1;
    for c in chars.by_ref() {
        if c == end {
            depth -= 1;
            if depth == 0 {
                return Ok(());
            }
        } else if c == open && open == '(' {
            depth += 1;
        }
    }
    if end == '\n' {
        return Ok(());
    }
    Err(SimError::Movetext(format!(
        "{open:?} is never closed by {end:?}"
    )))
}

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

/// The SAN in a token, without its move number and annotation marks;
/// `None` for tokens that are no move (`12.`, `12...`, `$3`, `e.p.`).
fn move_part(token: &str) -> Option<String> {
    if token.starts_with('$') || token == "e.p." {
        return None;
    }
    let rest = token.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if rest.len() < token.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else if rest.is_empty() {
        ""
    } else {
        token
    };
    let san = rest.trim_end_matches(['!', '?']);
    if san.is_empty() {
        return None;
    }
    if san.starts_with("0-0") {
        return Some(san.replace('0', "O"));
    }
    Some(san.to_string())
}

fn resolve(pos: &Chess, san: &str, ply: u32) -> Result<Move, SimError> {
    let parsed = SanPlus::from_ascii(san.as_bytes()).map_err(|_| SimError::NotSan {
        ply,
        san: san.to_string(),
    })?;
    parsed.san.to_move(pos).map_err(|e| match e {
        SanError::AmbiguousSan => SimError::AmbiguousSan {
            ply,
            san: san.to_string(),
        },
        SanError::IllegalSan => SimError::IllegalSan {
            ply,
            san: san.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_comments_variations_and_results() {
        let text = "[Event \"x\"]\n1. e4 {best by test} e5 2.Nf3 (2. f4 exf4 (2... d5)) \
                    2... Nc6 $1 3. Bb5!? a6; the Morphy defence\n 4. 0-0 *  5. Ba4";
        let moves = parse_movetext(text).unwrap();
        let sans: Vec<String> = replay_san(&moves);
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]);
    }

    #[test]
    fn an_illegal_move_names_its_ply_and_san() {
        let err = parse_movetext("1. e4 e5 2. Ke3").unwrap_err();
        assert!(matches!(err, SimError::IllegalSan { ply: 3, .. }));
        let text = err.to_string();
        assert!(text.contains("ply 3") && text.contains("Ke3"), "{text}");
        assert!(matches!(
            parse_movetext("1. d4 d5 2. Nf3 Nf6 3. Nd2"),
            Err(SimError::AmbiguousSan { ply: 5, .. })
        ));
        assert!(matches!(
            parse_movetext("1. e4 Xy9"),
            Err(SimError::NotSan { ply: 2, .. })
        ));
        assert!(matches!(
            parse_movetext("1. e4 {open"),
            Err(SimError::Movetext(_))
        ));
    }

    fn replay_san(moves: &[Move]) -> Vec<String> {
        let mut pos = Chess::default();
        moves
            .iter()
            .map(|&m| {
                let s = shakmaty::san::San::from_move(&pos, m).to_string();
                pos.play_unchecked(m);
                s
            })
            .collect()
    }
}

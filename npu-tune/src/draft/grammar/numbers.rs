//! The numbers of a body: literals, positive integers and window extents.

/// The most digits a number's integer or fractional part has.
const DIGITS: usize = 8;

/// `positive` integers up to [`DIGITS`] digits, and `literal`s: a number with up to
/// [`DIGITS`] fractional digits and an optional exponent (`128`, `0.0625`, `1e-5`), or
/// `inf` and `nan`. The digits are a chain of optional rules, bounded so that a model
/// cannot run on writing digits, and long enough for a row length or an epsilon.
pub(super) fn numbers() -> Vec<String> {
    let mut rules = vec![
        "positive ::= [1-9] digits1?".to_string(),
        "literal ::= number fraction? exponent? | \"inf\" | \"nan\"".to_string(),
        "fraction ::= \".\" [0-9] digits1?".to_string(),
        "exponent ::= \"e\" minus? positive".to_string(),
        "minus ::= \"-\"".to_string(),
    ];
    for n in 1..DIGITS - 1 {
        rules.push(format!("digits{n} ::= [0-9] digits{}?", n + 1));
    }
    rules.push(format!("digits{} ::= [0-9]", DIGITS - 1));
    rules
}

/// The alternatives of the integers from 1 to `most`, written without leading zeros:
/// for 64, `[1-9] | [1-5] [0-9] | "6" [0-4]`. Every shorter length first, then, digit
/// by digit, the numbers that keep `most`'s digits before it and go below it there.
pub(super) fn up_to(most: u64) -> String {
    let digits: Vec<u32> = most
        .to_string()
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let any = |count: usize| vec!["[0-9]"; count].join(" ");
    let mut alternatives = Vec::new();
    for length in 1..digits.len() {
        alternatives.push(format!("[1-9] {}", any(length - 1)).trim_end().to_string());
    }
    for (at, &digit) in digits.iter().enumerate() {
        let lowest = u32::from(at == 0);
        let prefix: String = digits[..at].iter().map(u32::to_string).collect();
        let mut parts = Vec::new();
        if !prefix.is_empty() {
            parts.push(format!("\"{prefix}\""));
        }
        match digit {
            _ if at + 1 == digits.len() && digit >= lowest => {
                parts.push(format!("[{lowest}-{digit}]"));
            }
            _ if digit > lowest => {
                parts.push(format!("[{lowest}-{}]", digit - 1));
                parts.push(any(digits.len() - at - 1));
            }
            _ => continue,
        }
        alternatives.push(parts.join(" "));
    }
    alternatives.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::up_to;

    #[test]
    fn extents_run_from_one_to_the_bound() {
        assert_eq!(up_to(64), "[1-9] | [1-5] [0-9] | \"6\" [0-4]");
        assert_eq!(up_to(3), "[1-3]");
        assert_eq!(up_to(10), "[1-9] | \"1\" [0-0]");
        assert_eq!(
            up_to(4096),
            "[1-9] | [1-9] [0-9] | [1-9] [0-9] [0-9] | [1-3] [0-9] [0-9] [0-9] | \"40\" [0-8] [0-9] | \"409\" [0-6]"
        );
    }
}

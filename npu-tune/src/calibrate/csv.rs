//! A small reader of comma-separated files as msprof writes them (RFC 4180: fields
//! separated by commas, records by `\n` or `\r\n`, a field in double quotes may hold
//! commas, line breaks and `""` for a quote). It is written here rather than taken from
//! the `csv` crate, which the workspace does not use yet: the profiler's files are a
//! header and a few hundred rows, and a reader of some 80 lines that says which line is
//! wrong costs less than a new dependency for every build.

/// A file's records: the header's fields, then each row's with the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    /// The first record: the column names, trimmed.
    pub header: Vec<String>,
    /// Each later record and the (1-based) line it starts on; blank lines are skipped.
    pub rows: Vec<(usize, Vec<String>)>,
}

/// Reads `bytes` as a table, or says why not: bytes that are not UTF-8 (with the
/// offset of the first bad byte), a quote left open at the end (a truncated file), an
/// empty file, or a row whose field count differs from the header's (a truncated or
/// hand-edited row), each with the line.
pub(crate) fn parse(bytes: &[u8]) -> Result<Table, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text: byte {} is not part of a UTF-8 character (a binary or a mis-encoded file)",
            e.valid_up_to()
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = records(text)?.into_iter();
    let (_, header) = records.next().ok_or("the file is empty: no header line")?;
    let header: Vec<String> = header.into_iter().map(|f| f.trim().to_string()).collect();
    let mut rows = Vec::new();
    for (line, fields) in records {
        if fields.len() != header.len() {
            return Err(format!(
                "line {line}: {} fields where the header has {} (a truncated or edited row)",
                fields.len(),
                header.len()
            ));
        }
        rows.push((line, fields));
    }
    Ok(Table { header, rows })
}

/// Splits `text` into records of fields, each with the line it starts on; a record that
/// is one empty field (a blank line) is dropped.
fn records(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut records = Vec::new();
    let (mut fields, mut field) = (Vec::new(), String::new());
    let (mut line, mut start, mut quoted) = (1, 1, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                fields.push(std::mem::take(&mut field));
                push_record(&mut records, start, std::mem::take(&mut fields));
                line += 1;
                start = line;
            }
            (_, c) => {
                line += usize::from(c == '\n');
                field.push(c);
            }
        }
    }
    if quoted {
        return Err(format!(
            "line {start}: a quoted field is not closed before the end of the file (a truncated file)"
        ));
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        push_record(&mut records, start, fields);
    }
    Ok(records)
}

fn push_record(records: &mut Vec<(usize, Vec<String>)>, line: usize, fields: Vec<String>) {
    if !(fields.len() == 1 && fields[0].trim().is_empty()) {
        records.push((line, fields));
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn quoted_fields_hold_commas_quotes_and_line_breaks() {
        let table = parse(b"Op Name,Input Shapes\r\nk_a,\"1,2;\"\"3\"\"\nx\"\n\nk_b,4\n").unwrap();
        assert_eq!(table.header, ["Op Name", "Input Shapes"]);
        assert_eq!(
            table.rows[0],
            (2, vec!["k_a".into(), "1,2;\"3\"\nx".into()])
        );
        assert_eq!(table.rows[1], (5, vec!["k_b".into(), "4".into()]));
    }

    #[test]
    fn bad_files_say_what_and_where() {
        let check = |bytes: &[u8], expected: &str| {
            let error = parse(bytes).unwrap_err();
            assert!(error.contains(expected), "{error}");
        };
        check(b"", "empty");
        check(b"a,b\n1,2\n3\n", "line 3: 1 fields where the header has 2");
        check(b"a,b\n1,\"2\n", "line 2: a quoted field is not closed");
        check(b"a,b\n1,\xff\n", "not UTF-8 text: byte 6");
    }
}

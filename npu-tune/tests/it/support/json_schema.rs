//! A validator for the JSON Schema keywords the drafting schema uses (`$ref` into
//! `$defs`, `anyOf`, `type`, `enum`, `properties`, `required`, `additionalProperties:
//! false`, `items`, `minItems`, `maxLength`, `minimum`, `maximum`), so that a test can ask
//! whether a server decoding under the schema could have written a reply. A keyword
//! outside these is an error, not ignored.

use serde_json::Value;

/// Whether `value` is valid under `schema` (a root with its `$defs`), or where not.
pub(crate) fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    at(schema, schema, value, "$")
}

fn at(root: &Value, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let keywords = schema
        .as_object()
        .ok_or(format!("{path}: a schema that is no object"))?;
    for (keyword, rule) in keywords {
        match keyword.as_str() {
            "$ref" => reference(root, rule, value, path)?,
            "anyOf" => {
                let options = rule.as_array().ok_or(format!("{path}: anyOf is no list"))?;
                if !options.iter().any(|o| at(root, o, value, path).is_ok()) {
                    return Err(format!("{path}: no alternative of anyOf admits {value}"));
                }
            }
            "type" => check_type(rule, value, path)?,
            "enum" => {
                let options = rule.as_array().ok_or(format!("{path}: enum is no list"))?;
                if !options.contains(value) {
                    return Err(format!("{path}: {value} is not one of {rule}"));
                }
            }
            // Each group of keywords is checked once, at its first member present.
            "properties" => object_keywords(root, keywords, value, path)?,
            "required" | "additionalProperties" if !keywords.contains_key("properties") => {
                object_keywords(root, keywords, value, path)?;
            }
            "items" => array_keywords(root, keywords, value, path)?,
            "minItems" if !keywords.contains_key("items") => {
                array_keywords(root, keywords, value, path)?;
            }
            "required" | "additionalProperties" | "minItems" => {}
            "maxLength" | "minimum" | "maximum" => bound(keyword, rule, value, path)?,
            "$defs" if std::ptr::eq(schema, root) => {}
            other => return Err(format!("{path}: the keyword `{other}` is not supported")),
        }
    }
    Ok(())
}

/// `$ref` into the root's `$defs`.
fn reference(root: &Value, rule: &Value, value: &Value, path: &str) -> Result<(), String> {
    let name = rule.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
    let target = name.and_then(|n| root["$defs"].get(n));
    at(
        root,
        target.ok_or(format!("{path}: no definition {rule}"))?,
        value,
        path,
    )
}

/// `maxLength` of a string, `minimum` and `maximum` of a number.
fn bound(keyword: &str, rule: &Value, value: &Value, path: &str) -> Result<(), String> {
    let beyond = match keyword {
        "maxLength" => {
            let length = value.as_str().map_or(0, |s| s.chars().count()) as u64;
            rule.as_u64().is_some_and(|max| length > max)
        }
        "maximum" => matches!((rule.as_f64(), value.as_f64()), (Some(max), Some(v)) if v > max),
        _ => matches!((rule.as_f64(), value.as_f64()), (Some(min), Some(v)) if v < min),
    };
    match beyond {
        true => Err(format!("{path}: {value} is outside {keyword} {rule}")),
        false => Ok(()),
    }
}

fn check_type(rule: &Value, value: &Value, path: &str) -> Result<(), String> {
    let fits = match rule.as_str() {
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("string") => value.is_string(),
        Some("boolean") => value.is_boolean(),
        _ => return Err(format!("{path}: the type {rule} is not supported")),
    };
    match fits {
        true => Ok(()),
        false => Err(format!("{path}: {value} is not of type {rule}")),
    }
}

fn object_keywords(
    root: &Value,
    keywords: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(object) = value.as_object() else {
        return Ok(());
    };
    let properties = keywords.get("properties").and_then(Value::as_object);
    for name in keywords
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = name.as_str().unwrap_or_default();
        if !object.contains_key(name) {
            return Err(format!("{path}: `{name}` is required"));
        }
    }
    for (name, property) in object {
        match properties.and_then(|p| p.get(name)) {
            Some(schema) => at(root, schema, property, &format!("{path}.{name}"))?,
            None if keywords.get("additionalProperties") == Some(&Value::Bool(false)) => {
                return Err(format!("{path}: `{name}` is not a property"));
            }
            None => {}
        }
    }
    Ok(())
}

fn array_keywords(
    root: &Value,
    keywords: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(items) = value.as_array() else {
        return Ok(());
    };
    let min = keywords
        .get("minItems")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if (items.len() as u64) < min {
        return Err(format!("{path}: fewer than {min} items"));
    }
    if let Some(schema) = keywords.get("items") {
        for (index, item) in items.iter().enumerate() {
            at(root, schema, item, &format!("{path}[{index}]"))?;
        }
    }
    Ok(())
}

//! `#if`/`#elif` expressions: `defined`, macro expansion, then C integer arithmetic (64-bit signed
//! or unsigned as C's usual conversions say, with short-circuiting so `0 && 1/0` is fine).

use super::driver::{Run, LIMITS};
use super::macros::{check_macro_name, Interner, Kind, Tok};
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// A value of a `#if` expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    bits: u64,
    unsigned: bool,
}

impl Val {
    fn int(v: i64) -> Val {
        Val {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> Val {
        Val::int(i64::from(b))
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }
}

impl Run<'_> {
    /// Evaluates the tokens of a `#if`/`#elif` line (`directive` is `if` or `elif`); an invalid
    /// expression is reported and counts as false.
    pub(crate) fn eval_condition(
        &mut self,
        directive: &'static str,
        directive_span: Span,
        toks: &[Tok],
    ) -> bool {
        if toks.is_empty() {
            let message = format!("missing expression in `#{directive}`");
            self.diags.push(Diagnostic::error(directive_span, message));
            return false;
        }
        let result = self.replace_defined(toks).and_then(|replaced| {
            let expanded = self.expand_list(replaced);
            let expanded = self.replace_defined(&expanded)?;
            let end = expanded.last().map_or(directive_span, |t| {
                Span::new(t.span.file, t.span.end, t.span.end)
            });
            let mut eval = Eval {
                toks: &expanded,
                pos: 0,
                interner: &self.st.interner,
                directive,
                end,
                depth: 0,
            };
            eval.parse()
        });
        match result {
            Ok(value) => value.is_true(),
            Err(diag) => {
                self.diags.push(*diag);
                false
            }
        }
    }

    /// Replaces `defined NAME` and `defined(NAME)` with `1` or `0`.
    fn replace_defined(&mut self, toks: &[Tok]) -> Result<Vec<Tok>, Box<Diagnostic>> {
        let Some(defined) = self.st.interner.lookup("defined") else {
            return Ok(toks.to_vec());
        };
        if !toks.iter().any(|t| t.sym == defined) {
            return Ok(toks.to_vec());
        }
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let tok = toks[i];
            if tok.kind != Kind::Ident || tok.sym != defined {
                out.push(tok);
                i += 1;
                continue;
            }
            let missing = |at: Option<&Tok>| {
                Box::new(Diagnostic::error(
                    at.map_or(tok.span, |t| t.span),
                    "expected macro name after `defined`",
                ))
            };
            let parenthesized = toks
                .get(i + 1)
                .is_some_and(|t| t.is_punct(&self.st.interner, "("));
            let name_at = if parenthesized { i + 2 } else { i + 1 };
            let name = *toks.get(name_at).ok_or_else(|| missing(toks.get(i + 1)))?;
            if name.kind != Kind::Ident {
                return Err(missing(Some(&name)));
            }
            check_macro_name(&self.st.interner, &name)?;
            let mut end = name;
            i = name_at + 1;
            if parenthesized {
                match toks.get(i) {
                    Some(close) if close.is_punct(&self.st.interner, ")") => end = *close,
                    other => {
                        let span = other.map_or(name.span, |t| t.span);
                        return Err(Box::new(Diagnostic::error(
                            span,
                            "expected `)` after macro name in `defined`",
                        )));
                    }
                }
                i += 1;
            }
            let is_defined = self.st.macros.get(name.sym).is_some();
            let sym = self.st.interner.intern(if is_defined { "1" } else { "0" });
            let span = if end.span.file == tok.span.file {
                tok.span.to(end.span)
            } else {
                tok.span
            };
            out.push(Tok {
                kind: Kind::Number,
                sym,
                span,
                ..tok
            });
        }
        Ok(out)
    }
}

/// A precedence-climbing evaluator over expanded tokens.
struct Eval<'a> {
    toks: &'a [Tok],
    pos: usize,
    interner: &'a Interner,
    directive: &'static str,
    /// Where "expected value" points when the line ends too early.
    end: Span,
    depth: usize,
}

/// Binding strength of a binary operator (higher binds tighter).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

type EvalResult = Result<Val, Box<Diagnostic>>;

impl<'a> Eval<'a> {
    fn parse(&mut self) -> EvalResult {
        let value = self.ternary(true)?;
        match self.toks.get(self.pos) {
            Some(tok) => Err(self.error(
                tok.span,
                format!("unexpected token `{}` in", self.interner.text(tok.sym)),
            )),
            None => Ok(value),
        }
    }

    fn error(&self, span: Span, what: impl std::fmt::Display) -> Box<Diagnostic> {
        Box::new(Diagnostic::error(
            span,
            format!("{what} `#{}` expression", self.directive),
        ))
    }

    fn peek_punct(&self) -> Option<&'a str> {
        let interner: &'a Interner = self.interner;
        let tok = self.toks.get(self.pos)?;
        (tok.kind == Kind::Punct).then(|| interner.text(tok.sym))
    }

    fn expect(&mut self, punct: &str) -> Result<(), Box<Diagnostic>> {
        if self.peek_punct() == Some(punct) {
            self.pos += 1;
            return Ok(());
        }
        let span = self.toks.get(self.pos).map_or(self.end, |t| t.span);
        Err(self.error(span, format!("expected `{punct}` in")))
    }

    fn enter(&mut self) -> Result<(), Box<Diagnostic>> {
        self.depth += 1;
        if self.depth > LIMITS.expression_depth {
            let span = self.toks.get(self.pos).map_or(self.end, |t| t.span);
            return Err(Box::new(Diagnostic::error(
                span,
                format!("`#{}` expression is nested too deeply", self.directive),
            )));
        }
        Ok(())
    }

    /// `live` is false inside a branch that is not evaluated (no division-by-zero errors there).
    fn ternary(&mut self, live: bool) -> EvalResult {
        self.enter()?;
        let cond = self.binary(1, live)?;
        let value = if self.peek_punct() == Some("?") {
            self.pos += 1;
            let yes = self.ternary(live && cond.is_true())?;
            self.expect(":")?;
            let no = self.ternary(live && !cond.is_true())?;
            let unsigned = yes.unsigned || no.unsigned;
            Val {
                bits: if cond.is_true() { yes.bits } else { no.bits },
                unsigned,
            }
        } else {
            cond
        };
        self.depth -= 1;
        Ok(value)
    }

    fn binary(&mut self, min_precedence: u8, live: bool) -> EvalResult {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self.peek_punct() {
            let Some(prec) = precedence(op) else { break };
            if prec < min_precedence {
                break;
            }
            let op_tok = self.toks[self.pos];
            self.pos += 1;
            let rhs_live = match op {
                "&&" => live && lhs.is_true(),
                "||" => live && !lhs.is_true(),
                _ => live,
            };
            let rhs = self.binary(prec + 1, rhs_live)?;
            lhs = self.apply(op_tok, lhs, rhs, live)?;
        }
        Ok(lhs)
    }

    fn apply(&self, op_tok: Tok, lhs: Val, rhs: Val, live: bool) -> EvalResult {
        let op = self.interner.text(op_tok.sym);
        let unsigned = lhs.unsigned || rhs.unsigned;
        let (a, b) = (lhs.bits, rhs.bits);
        let arith = |bits: u64| Val { bits, unsigned };
        Ok(match op {
            "*" => arith(a.wrapping_mul(b)),
            "/" | "%" if b == 0 => {
                if live {
                    let what = if op == "/" {
                        "division by zero in"
                    } else {
                        "remainder by zero in"
                    };
                    return Err(self.error(op_tok.span, what));
                }
                arith(0)
            }
            "/" if unsigned => arith(a / b),
            "/" => arith((a as i64).wrapping_div(b as i64) as u64),
            "%" if unsigned => arith(a % b),
            "%" => arith((a as i64).wrapping_rem(b as i64) as u64),
            "+" => arith(a.wrapping_add(b)),
            "-" => arith(a.wrapping_sub(b)),
            "<<" | ">>" => {
                let amount = if !rhs.unsigned && (b as i64) < 0 {
                    64
                } else {
                    b.min(64) as u32
                };
                let bits = match (op, lhs.unsigned) {
                    ("<<", _) => a.checked_shl(amount).unwrap_or(0),
                    (_, true) => a.checked_shr(amount).unwrap_or(0),
                    (_, false) => ((a as i64) >> amount.min(63)) as u64,
                };
                Val {
                    bits,
                    unsigned: lhs.unsigned,
                }
            }
            "<" | ">" | "<=" | ">=" => {
                let ord = if unsigned {
                    a.cmp(&b)
                } else {
                    (a as i64).cmp(&(b as i64))
                };
                Val::truth(match op {
                    "<" => ord.is_lt(),
                    ">" => ord.is_gt(),
                    "<=" => ord.is_le(),
                    _ => ord.is_ge(),
                })
            }
            "==" => Val::truth(a == b),
            "!=" => Val::truth(a != b),
            "&" => arith(a & b),
            "^" => arith(a ^ b),
            "|" => arith(a | b),
            "&&" => Val::truth(lhs.is_true() && rhs.is_true()),
            _ => Val::truth(lhs.is_true() || rhs.is_true()),
        })
    }

    fn unary(&mut self, live: bool) -> EvalResult {
        let Some(&tok) = self.toks.get(self.pos) else {
            return Err(self.error(self.end, "expected value in"));
        };
        self.pos += 1;
        let text = self.interner.text(tok.sym);
        match tok.kind {
            Kind::Punct => match text {
                "(" => {
                    let value = self.ternary(live)?;
                    self.expect(")")?;
                    Ok(value)
                }
                "+" | "-" | "!" | "~" => {
                    self.enter()?;
                    let operand = self.unary(live)?;
                    self.depth -= 1;
                    Ok(match text {
                        "+" => operand,
                        "-" => Val {
                            bits: operand.bits.wrapping_neg(),
                            ..operand
                        },
                        "~" => Val {
                            bits: !operand.bits,
                            ..operand
                        },
                        _ => Val::truth(!operand.is_true()),
                    })
                }
                _ => Err(self.error(tok.span, "expected value in")),
            },
            Kind::Number => self.number(tok, text),
            Kind::Char => Ok(char_value(text)),
            Kind::Ident => Ok(Val::truth(text == "true")),
            _ => Err(self.error(tok.span, "expected value in")),
        }
    }

    fn number(&self, tok: Tok, text: &str) -> EvalResult {
        let lower = text.to_ascii_lowercase();
        let body = lower.trim_end_matches(['u', 'l']);
        let unsigned_suffix = lower[body.len()..].contains('u');
        let (digits, radix) = if let Some(hex) = body.strip_prefix("0x") {
            (hex, 16)
        } else if let Some(bin) = body.strip_prefix("0b") {
            (bin, 2)
        } else if body.contains(['.', 'e']) {
            return Err(self.error(tok.span, "floating-point number in"));
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
        if radix == 16 && digits.contains(['.', 'p']) {
            return Err(self.error(tok.span, "floating-point number in"));
        }
        let invalid = || self.error(tok.span, format!("invalid integer `{text}` in"));
        if digits.is_empty() {
            return Err(invalid());
        }
        let mut value: u64 = 0;
        for c in digits.chars() {
            let digit = c.to_digit(radix).ok_or_else(invalid)?;
            value = value
                .checked_mul(u64::from(radix))
                .and_then(|v| v.checked_add(u64::from(digit)))
                .ok_or_else(|| self.error(tok.span, format!("integer `{text}` is too large in")))?;
        }
        Ok(Val {
            bits: value,
            unsigned: unsigned_suffix || value > i64::MAX as u64,
        })
    }
}

/// The value of a character literal such as `'a'`, `'\n'`, `'\x41'` (several characters fold
/// into one integer as in C).
fn char_value(text: &str) -> Val {
    let inner = text.strip_prefix('\'').unwrap_or(text);
    let inner = inner.strip_suffix('\'').unwrap_or(inner);
    let mut chars = inner.chars().peekable();
    let mut value: u64 = 0;
    while let Some(c) = chars.next() {
        let code = if c == '\\' {
            match chars.next() {
                Some('n') => 10,
                Some('t') => 9,
                Some('r') => 13,
                Some('a') => 7,
                Some('b') => 8,
                Some('f') => 12,
                Some('v') => 11,
                Some('x') => {
                    let mut v: u64 = 0;
                    while let Some(d) = chars.peek().and_then(|c| c.to_digit(16)) {
                        v = v.wrapping_mul(16).wrapping_add(u64::from(d));
                        chars.next();
                    }
                    v
                }
                Some(d @ '0'..='7') => {
                    let mut v = u64::from(d as u8 - b'0');
                    for _ in 0..2 {
                        match chars.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                v = v * 8 + u64::from(d);
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    v
                }
                Some(other) => u64::from(other),
                None => u64::from('\\'),
            }
        } else {
            u64::from(c)
        };
        value = (value << 8) | (code & 0xff);
    }
    Val::int(value as i64)
}

//! Lowering of blocks and statements, with the statement nesting limit.

use pest::iterators::Pair;

use super::item::first_child;
use super::{Lowered, Lowerer, Rule, MAX_STMT_DEPTH};
use crate::ast::{Block, CaseLabel, ForInit, Stmt, StmtKind, SwitchCase};
use crate::diagnostic::Diagnostic;

impl Lowerer<'_> {
    /// `{ stmts }`
    pub(crate) fn block(&mut self, pair: Pair<'_, Rule>) -> Lowered<Block> {
        let span = self.span(pair.as_span());
        let inner = pair.into_inner();
        let mut stmts = Vec::with_capacity(inner.len());
        for stmt in inner {
            stmts.push(self.stmt(stmt)?);
        }
        Ok(Block { stmts, span })
    }

    /// A `stmt` pair: attributes and the statement proper.
    fn stmt(&mut self, pair: Pair<'_, Rule>) -> Lowered<Stmt> {
        let span = self.span(pair.as_span());
        if self.stmt_depth >= MAX_STMT_DEPTH {
            return Err(self.abort(
                Diagnostic::error(span, "statements are nested too deeply")
                    .with_label(format!("more than {MAX_STMT_DEPTH} nested statements")),
            ));
        }
        self.stmt_depth += 1;
        let result = self.stmt_inner(pair, span);
        self.stmt_depth -= 1;
        result
    }

    fn stmt_inner(&mut self, pair: Pair<'_, Rule>, span: crate::source::Span) -> Lowered<Stmt> {
        let mut attributes = Vec::new();
        let mut kind = None;
        for part in pair.into_inner() {
            if part.as_rule() == Rule::attribute_list {
                self.attribute_list(part, &mut attributes)?;
            } else {
                kind = Some(self.stmt_kind(part)?);
            }
        }
        Ok(Stmt {
            attributes,
            kind: kind.expect("statement kind"),
            span,
        })
    }

    fn stmt_kind(&mut self, pair: Pair<'_, Rule>) -> Lowered<StmtKind> {
        Ok(match pair.as_rule() {
            Rule::block => StmtKind::Block(self.block(pair)?),
            Rule::if_stmt => {
                let mut inner = pair
                    .into_inner()
                    .filter(|p| !matches!(p.as_rule(), Rule::if_kw | Rule::else_kw));
                let cond = self.expr(inner.next().expect("if condition"))?;
                let then_branch = Box::new(self.stmt(inner.next().expect("then branch"))?);
                let else_branch = inner
                    .next()
                    .map(|stmt| self.stmt(stmt))
                    .transpose()?
                    .map(Box::new);
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                }
            }
            Rule::for_stmt => {
                let (mut init, mut cond, mut step, mut body) = (None, None, None, None);
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::for_kw => {}
                        Rule::for_init => {
                            let clause = first_child(part);
                            init = Some(Box::new(match clause.as_rule() {
                                Rule::var_decl => ForInit::Decl(self.var_decl(clause)?),
                                Rule::expr => ForInit::Expr(self.expr(clause)?),
                                rule => unreachable!("rule for_init: {rule:?}"),
                            }));
                        }
                        Rule::for_cond => cond = Some(Box::new(self.expr(first_child(part))?)),
                        Rule::for_step => step = Some(Box::new(self.expr(first_child(part))?)),
                        Rule::stmt => body = Some(Box::new(self.stmt(part)?)),
                        rule => unreachable!("rule for_stmt: {rule:?}"),
                    }
                }
                StmtKind::For {
                    init,
                    cond,
                    step,
                    body: body.expect("for body"),
                }
            }
            Rule::while_stmt => {
                let mut inner = pair.into_inner().skip(1);
                let cond = self.expr(inner.next().expect("while condition"))?;
                let body = Box::new(self.stmt(inner.next().expect("while body"))?);
                StmtKind::While { cond, body }
            }
            Rule::do_stmt => {
                let mut inner = pair
                    .into_inner()
                    .filter(|p| !matches!(p.as_rule(), Rule::do_kw | Rule::while_kw));
                let body = Box::new(self.stmt(inner.next().expect("do body"))?);
                let cond = self.expr(inner.next().expect("do condition"))?;
                StmtKind::DoWhile { body, cond }
            }
            Rule::switch_stmt => {
                let mut inner = pair.into_inner().skip(1);
                let scrutinee = self.expr(inner.next().expect("switch value"))?;
                let cases = inner
                    .map(|case| self.switch_case(case))
                    .collect::<Lowered<Vec<_>>>()?;
                StmtKind::Switch { scrutinee, cases }
            }
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::return_stmt => {
                let value = pair
                    .into_inner()
                    .nth(1)
                    .map(|value| self.expr(value))
                    .transpose()?;
                StmtKind::Return(value)
            }
            Rule::empty_stmt => StmtKind::Empty,
            Rule::decl_stmt => StmtKind::Decl(self.var_decl(first_child(pair))?),
            Rule::expr_stmt => StmtKind::Expr(self.expr(first_child(pair))?),
            rule => unreachable!("rule stmt_kind: {rule:?}"),
        })
    }

    /// A label and its statements.
    fn switch_case(&mut self, pair: Pair<'_, Rule>) -> Lowered<SwitchCase> {
        let span = self.span(pair.as_span());
        let mut inner = pair.into_inner();
        let label_pair = inner.next().expect("switch label");
        let label = match label_pair.as_rule() {
            Rule::case_label => CaseLabel::Case(
                self.assign_expr(label_pair.into_inner().nth(1).expect("case value"))?,
            ),
            Rule::default_label => CaseLabel::Default,
            rule => unreachable!("rule switch_case: {rule:?}"),
        };
        let body = inner
            .map(|stmt| self.stmt(stmt))
            .collect::<Lowered<Vec<_>>>()?;
        Ok(SwitchCase { label, body, span })
    }
}

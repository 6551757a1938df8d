//! Initializer lists resolved against their target type: nested (`{ {1, 2}, {3, 4} }`, one item
//! per element or field) or flat as HLSL allows (`float2 a[2] = { 1, 2, 3, 4 }`, components taken
//! in order, vectors split where needed). Also infers the length of `T a[] = { .. }`.

use std::collections::VecDeque;

use super::consteval::try_fold;
use super::expr::is_pure;
use super::Checker;
use crate::ast;
use crate::hir::{Expr, ExprKind};
use crate::source::Span;
use crate::types::Type;

impl Checker<'_> {
    /// Checks a variable's initializer; an unsized array type gets its length from a list.
    pub fn check_initializer(&mut self, init: &ast::Expr, ty: &mut Type) -> Expr {
        if let (Type::Array(elem, None), ast::ExprKind::InitList(items)) = (&*ty, &init.kind) {
            let per_element = self.leaf_count(elem).max(1);
            let all_scalars = items
                .iter()
                .all(|i| !matches!(i.kind, ast::ExprKind::InitList(_)));
            let len = if per_element > 1
                && all_scalars
                && items.len() as u32 > per_element.min(items.len() as u32)
            {
                (items.len() as u32).div_ceil(per_element)
            } else {
                items.len() as u32
            };
            *ty = Type::array((**elem).clone(), Some(len.max(1)));
        }
        self.check_expr_as(init, ty)
    }

    /// The number of scalar values (views and handles count as one) a type is initialized from.
    fn leaf_count(&self, ty: &Type) -> u32 {
        match ty {
            Type::Array(elem, len) => self.leaf_count(elem) * len.unwrap_or(0),
            Type::Struct(id) => self
                .types
                .struct_def(*id)
                .map(|def| def.fields.iter().map(|f| self.leaf_count(&f.ty)).sum())
                .unwrap_or(0),
            other => other.component_count().unwrap_or(1),
        }
    }

    /// The number of top-level elements of a type (array elements, struct fields, components).
    fn element_count(&self, ty: &Type) -> Option<u32> {
        match ty {
            Type::Array(_, len) => *len,
            Type::Struct(id) => self.types.struct_def(*id).map(|d| d.fields.len() as u32),
            _ => None,
        }
    }

    /// Resolves `{ items }` against `ty`.
    pub fn check_init_list(&mut self, items: &[ast::Expr], ty: &Type, span: Span) -> Expr {
        if *ty == Type::Error {
            self.flatten_items(items);
            return Expr::new(ExprKind::Error, Type::Error, span);
        }
        if ty.is_numeric() {
            // Vectors, matrices and scalars take components from the (flattened) items.
            let mut queue = self.flatten_items(items);
            let value = self.fill(ty, &mut queue, span);
            return self.finish_fill(value, ty, queue, span);
        }
        if let Some(count) = self.element_count(ty) {
            if count as usize == items.len() {
                let elements: Vec<Expr> = (0..count as usize)
                    .map(|i| {
                        let elem_ty = self.element_type(ty, i);
                        self.check_expr_as(&items[i], &elem_ty)
                    })
                    .collect();
                return try_fold(Expr::new(ExprKind::Aggregate(elements), ty.clone(), span));
            }
            let mut queue = self.flatten_items(items);
            let value = self.fill(ty, &mut queue, span);
            return self.finish_fill(value, ty, queue, span);
        }
        // Views, node handles: a single item in braces.
        match items {
            [single] => self.check_expr_as(single, ty),
            _ => {
                self.flatten_items(items);
                let shown = self.show(ty);
                self.error(
                    span,
                    format!("an initializer list for `{shown}` must have exactly one value"),
                );
                Expr::new(ExprKind::Error, ty.clone(), span)
            }
        }
    }

    fn element_type(&self, ty: &Type, index: usize) -> Type {
        match ty {
            Type::Array(elem, _) => (**elem).clone(),
            Type::Struct(id) => self
                .types
                .struct_def(*id)
                .and_then(|d| d.fields.get(index))
                .map(|f| f.ty.clone())
                .unwrap_or(Type::Error),
            _ => Type::Error,
        }
    }

    fn finish_fill(
        &mut self,
        value: Option<Expr>,
        ty: &Type,
        queue: VecDeque<Expr>,
        span: Span,
    ) -> Expr {
        let Some(value) = value else {
            return Expr::new(ExprKind::Error, ty.clone(), span);
        };
        if let Some(extra) = queue.front() {
            let shown = self.show(ty);
            self.error(extra.span, format!("too many initializers for `{shown}`"));
            return Expr::new(ExprKind::Error, ty.clone(), span);
        }
        value
    }

    /// Checks every item, flattening nested lists, in order.
    fn flatten_items(&mut self, items: &[ast::Expr]) -> VecDeque<Expr> {
        let mut out = VecDeque::new();
        for item in items {
            match &item.kind {
                ast::ExprKind::InitList(inner) => out.extend(self.flatten_items(inner)),
                _ => out.push_back(self.check_expr(item)),
            }
        }
        out
    }

    /// Builds a value of `ty` from the front of `queue` (flat initialization).
    fn fill(&mut self, ty: &Type, queue: &mut VecDeque<Expr>, span: Span) -> Option<Expr> {
        match ty {
            Type::Array(..) | Type::Struct(_) => {
                let count = self.element_count(ty)?;
                let mut elements = Vec::with_capacity(count as usize);
                for i in 0..count as usize {
                    let elem_ty = self.element_type(ty, i);
                    // A whole value of the element's type may stand for the element.
                    if queue.front().is_some_and(|e| e.ty == elem_ty) {
                        elements.push(queue.pop_front()?);
                        continue;
                    }
                    elements.push(self.fill(&elem_ty, queue, span)?);
                }
                Some(try_fold(Expr::new(
                    ExprKind::Aggregate(elements),
                    ty.clone(),
                    span,
                )))
            }
            _ if ty.is_numeric() => {
                let wanted = ty.component_count()?;
                let kind = ty.component_kind()?;
                let mut parts = Vec::new();
                let mut got = 0;
                while got < wanted {
                    let Some(item) = queue.pop_front() else {
                        let shown = self.show(ty);
                        self.error(span, format!("not enough initializers for `{shown}`"));
                        return None;
                    };
                    if item.ty == Type::Error {
                        return None;
                    }
                    let Some(n) = item.ty.component_count().filter(|_| item.ty.is_numeric()) else {
                        let message =
                            crate::types::cannot_convert_message(&item.ty, ty, &self.types);
                        self.error(item.span, message);
                        return None;
                    };
                    if got + n <= wanted {
                        got += n;
                        let part_ty = item.ty.with_kind(kind);
                        parts.push(self.convert_to(item, &part_ty));
                        continue;
                    }
                    // Split a vector across two targets.
                    let Type::Vector(item_kind, _) = item.ty else {
                        self.error(
                            item.span,
                            "cannot split a matrix across initializer elements",
                        );
                        return None;
                    };
                    if !is_pure(&item) {
                        self.error(item.span, "cannot split an expression with side effects across initializer elements");
                        return None;
                    }
                    let need = (wanted - got) as u8;
                    let take = |range: std::ops::Range<u8>| {
                        let ty = Type::scalar_or_vector(
                            item_kind,
                            if range.len() == 1 {
                                0
                            } else {
                                range.len() as u8
                            },
                        );
                        let kind = ExprKind::Swizzle {
                            base: Box::new(item.clone()),
                            components: range.collect(),
                        };
                        try_fold(Expr::new(kind, ty, item.span))
                    };
                    let head = take(0..need);
                    let tail = take(need..n as u8);
                    queue.push_front(tail);
                    let part_ty = head.ty.with_kind(kind);
                    parts.push(self.convert_to(head, &part_ty));
                    got = wanted;
                }
                if ty.is_scalar() {
                    let part = parts.pop()?;
                    return Some(self.convert_to(part, ty));
                }
                Some(try_fold(Expr::new(
                    ExprKind::Construct(parts),
                    ty.clone(),
                    span,
                )))
            }
            _ => {
                let Some(item) = queue.pop_front() else {
                    let shown = self.show(ty);
                    self.error(span, format!("not enough initializers for `{shown}`"));
                    return None;
                };
                Some(self.coerce(item, ty))
            }
        }
    }
}

"""Rewrites Python 2 sources in place so Python 3 runs them with Python 2's arithmetic.

Used by experiments/peers.sh to run Tiresias' simulator (Python 2 only) as a reference,
in a scratch copy outside the repository. Three things change meaning between the two
languages and change a simulator's numbers, so each becomes a call with Python 2's rule:
  a / b      floors when both are ints (Tiresias' demotion instants divide ints)
  round(x)   rounds half away from zero and returns a float
  sys.maxint exists (Python 3 has only sys.maxsize, the same value on 64-bit machines)
and xrange/iteritems/itervalues/iterkeys become their Python 3 names. Everything else is
left as written (the files must already parse as Python 3: Tiresias' do, thanks to its
print_function import). Usage: python3 py2port.py FILE.py ...
"""
import ast
import sys

PRELUDE = '''
import sys as _sys, math as _math
if not hasattr(_sys, "maxint"):
    _sys.maxint = _sys.maxsize
def _py2div(a, b):
    if type(a) is int and type(b) is int:
        return a // b
    return a / b
def _py2round(x, n=0):
    m = 10.0 ** n
    return float(_math.copysign(_math.floor(abs(x) * m + 0.5) / m, x))
'''


class Py2Semantics(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            call = ast.Call(ast.Name('_py2div', ast.Load()), [node.left, node.right], [])
            return ast.copy_location(call, node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            load = ast.parse(ast.unparse(node.target), mode='eval').body
            call = ast.Call(ast.Name('_py2div', ast.Load()), [load, node.value], [])
            return ast.copy_location(ast.Assign([node.target], call), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in ('round', 'xrange'):
            f.id = {'round': '_py2round', 'xrange': 'range'}[f.id]
        elif isinstance(f, ast.Attribute) and f.attr in ('iteritems', 'itervalues', 'iterkeys'):
            f.attr = f.attr[4:]
        return node


for path in sys.argv[1:]:
    tree = Py2Semantics().visit(ast.parse(open(path).read(), path))
    ast.fix_missing_locations(tree)
    lines = ast.unparse(tree).split('\n')
    future = [l for l in lines if l.startswith('from __future__')]
    rest = [l for l in lines if not l.startswith('from __future__')]
    with open(path, 'w') as f:
        f.write('\n'.join(future) + PRELUDE + '\n'.join(rest) + '\n')

"""The compiled engine: whole hands on integer arrays, compiled with numba.

Everything here runs in nopython mode (``@njit(cache=True)``) and also as plain Python with
``NUMBA_DISABLE_JIT=1``; the rules are those of ``simsuite.rules.order``, ``units``, ``follow``,
``trick`` and ``scoring``, re-expressed on arrays in the modules of the same names (their shared
layout in ``core``) and checked against them by the tests.

Reference counts. Numba counts the references to every array a compiled function binds or
passes, with an atomic add each time, and the hand loop binds and passes arrays at every play.
Importing this package makes those counts plain adds for the whole process (numba's own switch,
``nrtdynmod._disable_atomicity``, read once when numba's runtime starts): 1.4 to 2 times the
hands per second (docs/performance.md, "Twice the speed"). It is safe because no engine function
releases the GIL (no ``nogil``, no ``parallel``; ``tests/test_refcounts.py`` checks both), so two
threads never count the same array at once. A process that imports the engine must not also run
numba code of its own in parallel threads (numba's parallel or nogil options). If numba's runtime
has already started when the engine is imported, the counts stay atomic: slower, never wrong.

The same switch lets LLVM inline the two counting functions. numba marks ``NRT_incref`` and
``NRT_decref`` ``noinline`` so that its reference-count pruning pass can find their calls; that pass
still runs first (it runs at the end of each optimisation pipeline, and the cheap one that precedes
the full one inlines only what is marked ``alwaysinline``), and the full optimisation then inlines
whatever counts remain: a load, an add and a store instead of a call. Alone it gave 1.47 times the
hands per second of ``basic`` and 1.26 times of ``expert`` (docs/performance.md, "Twice the speed").

Dead stores that are not dead. numba's dead-code elimination (``ir_utils.remove_dead``, run after
each inlined ``overload(..., inline="always")`` and when closures are inlined) keeps a store into an
array only if the array may alias something still live. Its alias analysis
(``ir_utils.find_potential_aliases``) visits the blocks once, in the order of their labels, so that
an array taken from an argument tuple by an inlined function (``st.voids`` in a phase inlined into
the hand loop, whose ``st`` is a copy made in a block visited later) can be missed, and the store
``st.voids[seat, k] = 1`` dropped without a word. Whether that happens depends on block labels, that
is on everything else the function contains: the lean hand loop lost its voids this way
(docs/performance.md, "A miscompile, and its guard"). Importing this package makes the analysis run to a fixed
point, which finds every alias whatever the order; it only keeps more stores.
"""

from llvmlite import ir as _ir
from numba.core.runtime import nrt as _nrt
from numba.core.runtime import nrtdynmod as _nrtdynmod


def _inlinable(define):
    """Wrap one of numba's ``_define_nrt_incref`` / ``_define_nrt_decref`` so that the function it
    defines may be inlined by LLVM's full optimisation."""

    def define_inlinable(module, *args):
        define(module, *args)
        for fn in module.functions:
            if fn.name in ("NRT_incref", "NRT_decref"):
                fn.attributes.discard("noinline")

    define_inlinable.simsuite_inlinable = True
    return define_inlinable


def _plain_inc_dec(define):
    """Wrap numba's ``_define_atomic_inc_dec`` so that its plain (non-atomic) counter returns the
    new count, as the atomic one does. numba's plain branch returns the old count, and
    ``NRT_decref`` frees an array when the count it gets back is 0: with it, no array that
    compiled code allocates was ever freed (every ``np.zeros`` in a compiled function leaked its
    memory; the search leaked about 10 kB a decision). ``tests/test_refcounts.py`` checks that
    compiled allocations are freed."""

    def define_plain(module, op, ordering):
        if not _nrtdynmod._disable_atomicity:
            return define(module, op, ordering)
        word = _nrtdynmod._word_type
        fn = _ir.Function(module, _ir.FunctionType(word, [word.as_pointer()]), name=f"nrt_atomic_{op}")
        [ptr] = fn.args
        builder = _ir.IRBuilder(fn.append_basic_block())
        new = getattr(builder, op)(builder.load(ptr), _ir.Constant(word, 1))
        builder.store(new, ptr)
        builder.ret(new)
        return fn

    define_plain.simsuite_plain = True
    return define_plain


def plain_refcounts() -> bool:
    """Make numba's reference counts plain (not atomic) adds, if its runtime has not started yet.
    Returns whether the counts this process will use are plain."""
    if not _nrt.rtsys._init:
        _nrtdynmod._disable_atomicity = 1
        if not getattr(_nrtdynmod._define_atomic_inc_dec, "simsuite_plain", False):
            _nrtdynmod._define_atomic_inc_dec = _plain_inc_dec(_nrtdynmod._define_atomic_inc_dec)
        if not getattr(_nrtdynmod._define_nrt_incref, "simsuite_inlinable", False):
            _nrtdynmod._define_nrt_incref = _inlinable(_nrtdynmod._define_nrt_incref)
            _nrtdynmod._define_nrt_decref = _inlinable(_nrtdynmod._define_nrt_decref)
    return bool(_nrtdynmod._disable_atomicity)


def alias_fixed_point() -> bool:
    """Make numba's alias analysis (``ir_utils.find_potential_aliases``) run until nothing new is
    found. Returns whether it is installed."""
    from numba.core import ir_utils

    once = ir_utils.find_potential_aliases
    if getattr(once, "simsuite_fixed_point", False):
        return True

    def found(alias_map, arg_aliases):
        return len(arg_aliases), len(alias_map), sum(len(v) for v in alias_map.values())

    def find_potential_aliases(blocks, args, typemap, func_ir, alias_map=None, arg_aliases=None):
        alias_map, arg_aliases = once(blocks, args, typemap, func_ir, alias_map, arg_aliases)
        while True:  # the sets only grow, so this ends
            before = found(alias_map, arg_aliases)
            alias_map, arg_aliases = once(blocks, args, typemap, func_ir, alias_map, arg_aliases)
            if found(alias_map, arg_aliases) == before:
                return alias_map, arg_aliases

    find_potential_aliases.simsuite_fixed_point = True
    ir_utils.find_potential_aliases = find_potential_aliases
    return True


plain_refcounts()
alias_fixed_point()

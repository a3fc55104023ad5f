"""groups: a regular table's games under one id and token, its players' renames, and the rematch
links between games (the next game at the table and the game it follows)

Revision ID: 0005_groups
Revises: 0004_credentials
Create Date: 2026-11-28 10:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0005_groups'
down_revision = '0004_credentials'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('groups',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('group_renames',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('group_id', sa.String(length=32), nullable=False),
    sa.Column('old_name', sa.String(length=40), nullable=False),
    sa.Column('new_name', sa.String(length=40), nullable=False),
    sa.Column('merge', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['group_id'], ['groups.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('group_renames', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_renames_group_id'), ['group_id'], unique=False)

    # The columns come in place, their foreign keys inline (ADD COLUMN ... REFERENCES): SQLite allows
    # that, where a separate constraint would make batch mode copy the games table.
    for column, target in [('group_id', 'groups.id'), ('rematch_id', 'games.id'), ('rematch_of_id', 'games.id')]:
        op.add_column('games', sa.Column(column, sa.String(length=32), sa.ForeignKey(target), nullable=True),
                      inline_references=True)
    op.create_index('ix_games_group_created', 'games', ['group_id', 'created_at', 'id'], unique=False)
    op.create_index('uq_games_rematch', 'games', ['rematch_id'], unique=True)
    op.create_index('uq_games_rematch_of', 'games', ['rematch_of_id'], unique=True)


def downgrade():
    op.drop_index('uq_games_rematch_of', table_name='games')
    op.drop_index('uq_games_rematch', table_name='games')
    op.drop_index('ix_games_group_created', table_name='games')
    sqlite = op.get_bind().dialect.name == 'sqlite'
    if sqlite:
        # SQLite drops a column with a foreign key only by copying the table, and dropping the old
        # games table with foreign keys enforced would first delete its rows (refused: moves point
        # at them). The pragma works only outside a transaction: hence the autocommit blocks, also
        # to turn the checks back on for the connection, which goes back to the pool.
        with op.get_context().autocommit_block():
            op.execute('PRAGMA foreign_keys=OFF')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('rematch_of_id')
        batch_op.drop_column('rematch_id')
        batch_op.drop_column('group_id')
    if sqlite:
        with op.get_context().autocommit_block():
            op.execute('PRAGMA foreign_keys=ON')

    with op.batch_alter_table('group_renames', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_group_renames_group_id'))

    op.drop_table('group_renames')
    op.drop_table('groups')

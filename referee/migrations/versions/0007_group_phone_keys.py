"""credentials: a phone's key to a group (group_id, instead of game_id), so that no page cookie
carries a group's token; exactly one of game_id and group_id is set

Revision ID: 0007_group_phone_keys
Revises: 0006_moves_one_game_index
Create Date: 2026-11-27 14:00:00

"""
import sqlalchemy as sa
from alembic import op

revision = '0007_group_phone_keys'
down_revision = '0006_moves_one_game_index'
branch_labels = None
depends_on = None

ONE_OWNER = ("(game_id IS NULL AND group_id IS NOT NULL) OR "
             "(game_id IS NOT NULL AND group_id IS NULL)")


def _foreign_keys(on: bool) -> None:
    """SQLite makes game_id nullable only by copying the table, and dropping the old credentials
    table with foreign keys enforced would first delete its rows (refused: the copy's parent_id
    points at them). The pragma works only outside a transaction, as in 0005."""
    if op.get_bind().dialect.name == 'sqlite':
        with op.get_context().autocommit_block():
            op.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


def upgrade():
    _foreign_keys(False)
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.add_column(sa.Column('group_id', sa.String(length=32), nullable=True))
        batch_op.alter_column('game_id', existing_type=sa.String(length=32), nullable=True)
        batch_op.create_foreign_key('credentials_group_id_fkey', 'groups', ['group_id'], ['id'])
        batch_op.create_index(batch_op.f('ix_credentials_group_id'), ['group_id'], unique=False)
        batch_op.create_check_constraint('ck_credentials_one_owner', ONE_OWNER)
    _foreign_keys(True)


def downgrade():
    # the groups' phone keys have no place before this revision: those phones lose their key to the
    # group (its token, kept by whoever holds it, still opens it)
    op.execute("DELETE FROM credentials WHERE group_id IS NOT NULL")
    _foreign_keys(False)
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.drop_constraint('ck_credentials_one_owner', type_='check')
        batch_op.drop_index(batch_op.f('ix_credentials_group_id'))
        batch_op.drop_constraint('credentials_group_id_fkey', type_='foreignkey')
        batch_op.drop_column('group_id')
        batch_op.alter_column('game_id', existing_type=sa.String(length=32), nullable=False)
    _foreign_keys(True)
